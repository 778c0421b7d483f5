import { app, dialog, type BrowserWindow } from 'electron'
import { writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { DesktopPort } from '../ports'

type Printing = NonNullable<DesktopPort['printing']>

/** A file name the save dialog can offer: no folders, no characters a file system refuses, ending in .pdf. */
export function pdfFileName(suggested: string): string {
  const printable = [...basename(suggested)].map((ch) => (ch.charCodeAt(0) < 32 ? ' ' : ch)).join('')
  const name =
    printable
      .replace(/[<>:"/\\|?*]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim() || 'Satchel document'
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`
}

/**
 * "Print…" and "Save as PDF…" for what the window shows (the document view, whose print CSS lays the
 * page out). The save dialog comes first: a rep who cancels it has asked for nothing, so nothing is
 * rendered and nothing is written.
 */
export function createPrinting(window: () => BrowserWindow | undefined): Printing {
  return {
    print: () =>
      new Promise<boolean>((resolve) => {
        const target = window()
        if (!target || target.isDestroyed()) return resolve(false)
        target.webContents.print({ silent: false, printBackground: true }, (success) => resolve(success))
      }),
    async savePdf(suggestedName) {
      const target = window()
      if (!target || target.isDestroyed()) return null
      const { canceled, filePath } = await dialog.showSaveDialog(target, {
        title: 'Save as PDF',
        defaultPath: join(app.getPath('documents'), pdfFileName(suggestedName)),
        filters: [{ name: 'PDF', extensions: ['pdf'] }],
      })
      if (canceled || !filePath) return null
      const pdf = await target.webContents.printToPDF({ printBackground: true })
      await writeFile(filePath, pdf)
      return filePath
    },
  }
}
