/**
 * Loaded with `node --import` into a child process: its wall clock (Date.now, new Date()) reads
 * TEST_CLOCK_SHIFT_MS off from everyone else's, as a laptop whose clock is wrong does. Its
 * monotonic clock (performance.now, timers) is left alone, as a wrong wall clock leaves it.
 */
const shift = Number(process.env.TEST_CLOCK_SHIFT_MS ?? 0)
if (shift !== 0) {
  const RealDate = Date
  const now = () => RealDate.now() + shift
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(now())
      else super(...args)
    }
    static now() {
      return now()
    }
  }
  globalThis.Date = ShiftedDate
}
