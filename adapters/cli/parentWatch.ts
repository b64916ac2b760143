/**
 * `npx fils …` (and a `fils …` line in a package.json script) runs this process through `sh -c`. npm passes a
 * SIGTERM sent to it on to that shell only, which dies of it without passing it on, and this process would run on
 * (with its embedded PostgreSQL) although whoever sent the signal meant to stop it. So, when npm started this
 * process, the parent exiting is taken as that SIGTERM: the same graceful stop follows.
 *
 * Outside npm a parent exiting means nothing (`nohup fils serve &` outlives its shell on purpose).
 */
export const stopWithNpmParent = (): void => {
  if (process.env["npm_lifecycle_event"] === undefined) return
  const parent = process.ppid
  const timer = setInterval(() => {
    // Reparented (to init or a subreaper): the parent has exited.
    if (process.ppid !== parent) {
      clearInterval(timer)
      process.kill(process.pid, "SIGTERM")
    }
  }, 200)
  timer.unref()
}
