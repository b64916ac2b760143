/**
 * The signing secret of `fils listen`, one per account on this machine: a receiver configured once keeps working
 * across restarts. Kept in the user's config folder (`$XDG_CONFIG_HOME`, else `~/.config`) as
 * `fils/listen/<account_id>.secret`, readable by its owner only (the folder 0700, the file 0600).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Config, Effect, Option } from "effect"
import { homedir } from "node:os"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { newSecret, secretProblem } from "../crypto/StandardWebhooks.js"

/** Where the secret of `accountId` is kept. */
export const secretFile = (accountId: string) =>
  Effect.gen(function*() {
    const path = yield* Path.Path
    const configured = yield* Config.option(Config.nonEmptyString("XDG_CONFIG_HOME"))
    const base = Option.getOrElse(configured, () => path.join(homedir(), ".config"))
    return path.join(base, "fils", "listen", `${accountId}.secret`)
  })

const unreadable = (file: string, why: string) =>
  new InvalidRequest({ message: `The listen secret in ${file} ${why}: pass --secret, or delete the file to make a new one` })

/** The kept secret of `accountId`, made (and kept) on first use. Two first starts at once keep the same one. */
export const keptSecret = (accountId: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = yield* secretFile(accountId)
    const read = fs.readFileString(file).pipe(
      Effect.mapError((e) => unreadable(file, `cannot be read (${e.message})`)),
      Effect.map((text) => text.trim()),
      Effect.filterOrFail((text) => secretProblem(text) === undefined, (text) => unreadable(file, secretProblem(text)!))
    )
    if (yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false))) return { secret: yield* read, file, made: false }
    yield* fs.makeDirectory(path.dirname(file), { recursive: true, mode: 0o700 }).pipe(
      Effect.mapError((e) => unreadable(file, `cannot be written (${e.message})`))
    )
    const secret = newSecret()
    // `wx`: never overwrite a secret a receiver may already hold; a start racing this one wrote it first.
    const written = yield* fs.writeFileString(file, `${secret}\n`, { flag: "wx", mode: 0o600 }).pipe(
      Effect.as(true),
      Effect.catchIf((e) => e._tag === "SystemError" && e.reason === "AlreadyExists", () => Effect.succeed(false)),
      Effect.mapError((e) => unreadable(file, `cannot be written (${e.message})`))
    )
    return written ? { secret, file, made: true } : { secret: yield* read, file, made: false }
  })
