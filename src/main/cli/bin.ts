/**
 * The CLI's entry in the app's build (electron.vite.config.ts: out/main/cli.js, which `npm run cli`
 * runs when it is current, scripts/cli.cjs). Compiled once, it starts at once: run from source, tsx
 * compiled every file it loaded on each start, 1.2 to 3.5 s (docs/cli.md). The build's own entries of
 * sync's threads are handed over here, as the desktop app's shell does for its core.
 */
import createSyncWriter from '../sync/writer-thread?nodeWorker'
import createSyncReader from '../sync/reader-thread?nodeWorker'
import { builtThreads } from './threads'
import { runAsProcess } from './index'

builtThreads.writer = createSyncWriter
builtThreads.reader = createSyncReader

runAsProcess(process.argv.slice(2))
