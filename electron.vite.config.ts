import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'electron-vite'
import { resolve } from 'node:path'

export default defineConfig({
  main: {
    build: {
      // zod is bundled: from node_modules it is many small files to find and read at every start of
      // the CLI (docs/cli.md). Native modules and the rest stay external.
      externalizeDeps: { exclude: ['zod'] },
      rollupOptions: {
        // The CLI is built with the app, so it starts without compiling TypeScript (src/main/cli/bin.ts).
        input: { index: resolve(__dirname, 'src/main/shell/index.ts'), cli: resolve(__dirname, 'src/main/cli/bin.ts') },
      },
    },
  },
  preload: {
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        // A sandboxed preload cannot load ES modules or anything but `electron`: one CommonJS file.
        output: { format: 'cjs', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/renderer/index.html') },
      },
    },
    plugins: [vue()],
  },
})
