/**
 * A Node `--import` preload that moves this process's wall clock `FILS_TEST_CLOCK_SHIFT_DAYS` days ahead (`Date`,
 * `Date.now`, and so Effect's `Clock`): for checking that a program holds no date that will one day be in the past.
 */
const shift = Number(process.env.FILS_TEST_CLOCK_SHIFT_DAYS ?? "0") * 86_400_000
const RealDate = Date
class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + shift)
    else super(...args)
  }
  static now() {
    return RealDate.now() + shift
  }
}
globalThis.Date = ShiftedDate
