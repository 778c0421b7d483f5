import { dialog, type BrowserWindow, type MessageBoxOptions } from 'electron'

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
  const { response } = parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options)
  return response === 0
}
