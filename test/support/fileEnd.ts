/** Work to do once the test file under way has ended (eachFile.ts runs it after the file's last test). */
const pending: Array<() => Promise<void>> = []

/** Registers `work` to run after the current file's last test (latest first). */
export const onFileEnd = (work: () => Promise<void>): void => {
  pending.push(work)
}

/** Runs and forgets what the file registered. */
export const endFile = async (): Promise<void> => {
  for (const work of pending.splice(0).reverse()) await work()
}
