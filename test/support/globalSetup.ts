/**
 * One PostgreSQL for the whole test run: `DATABASE_URL` when set, otherwise an embedded one in a fresh temp folder
 * that is stopped and deleted at the end. Test files get their own database on it (see `database.ts`).
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { startEmbeddedPostgres } from "../../adapters/sql/EmbeddedPostgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose role may create databases. */
    databaseUrl: string
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const configured = process.env["DATABASE_URL"]
  if (configured !== undefined && configured.trim() !== "") {
    project.provide("databaseUrl", configured)
    return undefined
  }
  const dir = await mkdtemp(join(tmpdir(), "fils-test-"))
  const db = await startEmbeddedPostgres(dir)
  project.provide("databaseUrl", db.url)
  return async () => {
    await db.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
