import { dialog, type BrowserWindow, type MessageBoxOptions } from 'electron'

/**
 * The question before quitting or signing out with orders still in the outbox. Cancel is the
 * default button: a rep who hits Enter out of habit keeps the app open.
 */
export async function askAboutUnsentOrders(parent: BrowserWindow | undefined, unsent: number, action: 'quit' | 'sign-out'): Promise<boolean> {
  const orders = unsent === 1 ? '1 order has' : `${unsent} orders have`
  const options: MessageBoxOptions = {
    type: 'warning',
    buttons: [action === 'quit' ? 'Quit anyway' : 'Sign out anyway', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
    title: 'Satchel',
    message: `${orders} not been sent yet`,
    detail:
      action === 'quit'
        ? 'They stay in the outbox and are sent the next time Satchel is open and online.'
        : 'They stay in the outbox and cannot be sent until you sign in again.',
  }
  const { response } = parent && !parent.isDestroyed() ? await dialog.showMessageBox(parent, options) : await dialog.showMessageBox(options)
  return response === 0
}
