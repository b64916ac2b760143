/**
 * A test clock's deletion takes its test payments' tax documents with it (docs/api.md, "Test clocks"). An issued
 * document still never changes and is never deleted, except a test-mode one while the transaction deleting a clock
 * says so (`fils.deleting_test_clock`, set transaction-locally by that delete alone).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE OR REPLACE FUNCTION tax_documents_never_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' AND NOT OLD.livemode
       AND coalesce(current_setting('fils.deleting_test_clock', true), '') = 'on' THEN
       RETURN OLD;
     END IF;
     RAISE EXCEPTION 'an issued tax document never changes (%)', OLD.document_id USING ERRCODE = 'restrict_violation';
   END $$`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
