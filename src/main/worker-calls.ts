/**
 * Calls to a worker thread that answers each with its id: the sync writer (sync/page-writer.ts) and
 * the purge's thread (housekeeping/purge-slices.ts). Both wait for the thread's ready message before the
 * first call, so a thread that cannot start (no native module for this runtime, say) is known before
 * anything depends on it; once the thread stops, every call waiting and every call after fails with
 * why, rather than hanging.
 */
import type { Worker } from 'node:worker_threads'

/** The answer a thread posted for one call: its id, and its value or why it failed. */
type WorkerAnswer =
  { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; code?: string; detail?: unknown }

export interface WorkerCallsOptions<Request> {
  /** The thread in words, for errors: "sync writer", "purge's thread". */
  name: string
  readyMessage: unknown
  closeMessage: unknown
  /** The message that carries `request` as call `id`. */
  post(id: number, request: Request): unknown
  /** The answer a message of the thread holds. */
  answer(message: unknown): WorkerAnswer
  /**
   * The error of a call the thread answered as failed; `code`: SQLite's (or Node's), which says a full
   * disk from a bug, or the kind of a service error; `detail`: what else the thread sent of it.
   */
  failed(message: string, code?: string, detail?: unknown): Error
}

export interface WorkerCalls<Request> {
  call(request: Request): Promise<unknown>
  /** Asks the thread to close and waits for it, at most a few seconds for one stuck in a long write. */
  close(): Promise<void>
}

export async function startWorkerCalls<Request>(
  worker: Worker,
  options: WorkerCallsOptions<Request>,
): Promise<WorkerCalls<Request>> {
  const { name } = options
  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (message !== options.readyMessage) return
      cleanup()
      resolve()
    }
    const onError = (error: Error) => {
      cleanup()
      reject(error)
    }
    const onExit = (code: number) => {
      cleanup()
      reject(new Error(`the ${name} exited (${code}) before it was ready`))
    }
    const cleanup = () => {
      worker.off('message', onMessage)
      worker.off('error', onError)
      worker.off('exit', onExit)
    }
    worker.on('message', onMessage)
    worker.on('error', onError)
    worker.on('exit', onExit)
  })
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let failure: Error | null = null
  let nextId = 1
  const failAll = (error: Error) => {
    failure ??= error
    for (const waiting of pending.values()) waiting.reject(error)
    pending.clear()
  }
  worker.on('message', (message: unknown) => {
    const answer = options.answer(message)
    const waiting = pending.get(answer.id)
    if (!waiting) return
    pending.delete(answer.id)
    if (answer.ok) waiting.resolve(answer.value)
    else waiting.reject(options.failed(answer.message, answer.code, answer.detail))
  })
  worker.on('error', (error) => failAll(new Error(`The ${name} stopped: ${error.message}`)))
  worker.on('exit', (code) => failAll(new Error(`The ${name} exited (${code}).`)))
  return {
    call(request) {
      if (failure) return Promise.reject(failure)
      const id = nextId++
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject })
        worker.postMessage(options.post(id, request))
      })
    },
    async close() {
      failure ??= new Error(`The ${name} was closed.`)
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
      worker.postMessage(options.closeMessage)
      const timer = setTimeout(() => void worker.terminate(), 5_000)
      await exited
      clearTimeout(timer)
    },
  }
}
