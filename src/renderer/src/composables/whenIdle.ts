/**
 * Work that may wait for a quiet moment: done in the main thread's idle time between frames, so a
 * list scrolled at speed pays nothing for rows that are gone before it is quiet. One idle callback
 * serves every waiting task, as many as fit in the time the browser offers; its timeout bounds each
 * wait on a page that is never idle (a long busy stretch still gets its work done after it).
 */
type Task = () => void

const waiting = new Set<Task>()
let scheduled = false
/** Long enough for a scroll at speed to pass a row by, short enough that a settled row fills at once. */
const LONGEST_WAIT_MS = 250
/** Left of the idle period when the next task is not started: a task's own rendering follows it. */
const MARGIN_MS = 2

type IdleDeadline = { timeRemaining(): number; didTimeout: boolean }
const requestIdle: (run: (deadline: IdleDeadline) => void, options: { timeout: number }) => void =
  typeof requestIdleCallback === 'function'
    ? (run, options) => void requestIdleCallback(run, options)
    : // Without idle callbacks (a test's DOM), soon is the best that can be said.
      (run) => void setTimeout(() => run({ timeRemaining: () => 50, didTimeout: false }), 0)

function drain(deadline: IdleDeadline): void {
  scheduled = false
  for (const task of waiting) {
    // Past the timeout every waiting task runs: the wait was bounded, not the work.
    if (!deadline.didTimeout && deadline.timeRemaining() < MARGIN_MS) break
    waiting.delete(task)
    task()
  }
  schedule()
}

function schedule(): void {
  if (scheduled || waiting.size === 0) return
  scheduled = true
  requestIdle(drain, { timeout: LONGEST_WAIT_MS })
}

/** Runs `task` at the next idle moment; the returned function takes it back if it has not run. */
export function whenIdle(task: Task): () => void {
  waiting.add(task)
  schedule()
  return () => waiting.delete(task)
}
