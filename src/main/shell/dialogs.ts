import { app, dialog, type BrowserWindow, type MessageBoxOptions } from 'electron'
import { writeFile } from 'node:fs/promises'
import { extname, join } from 'node:path'

/**
 * The question before quitting with orders still in the outbox. Cancel is the
 * default button: a rep who hits Enter out of habit keeps the app open.
 */
export async function askAboutUnsentOrders(parent: BrowserWindow | undefined, unsent: number): Promise<boolean> {
  const orders = unsent === 1 ? '1 order has' : `${unsent} orders have`
  const options: MessageBoxOptions = {
    type: 'warning',
    buttons: ['Quit anyway', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
    title: 'Satchel',
    message: `${orders} not been sent yet`,
    detail: 'They stay in the outbox and are sent the next time Satchel is open and online.',
  }
  const { response } =
    parent && !parent.isDestroyed()
      ? await dialog.showMessageBox(parent, options)
      : await dialog.showMessageBox(options)
  return response === 0
}

/**
 * A save dialog for a file the core made (the support bundle), in the Documents folder; the file is
 * written only once the rep has chosen where, readable by the rep alone.
 */
export async function saveFileWithDialog(
  parent: BrowserWindow | undefined,
  suggestedName: string,
  contents: Buffer,
): Promise<string | null> {
  const extension = extname(suggestedName).slice(1)
  const options = {
    title: 'Save support bundle',
    defaultPath: join(app.getPath('documents'), suggestedName),
    filters: extension ? [{ name: extension.toUpperCase(), extensions: [extension] }] : [],
  }
  const { canceled, filePath } =
    parent && !parent.isDestroyed()
      ? await dialog.showSaveDialog(parent, options)
      : await dialog.showSaveDialog(options)
  if (canceled || !filePath) return null
  await writeFile(filePath, contents, { mode: 0o600 })
  return filePath
}
