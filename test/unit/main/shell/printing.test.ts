import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest'

const stand = vi.hoisted(() => ({
  showSaveDialog: vi.fn(),
  getPath: vi.fn(() => '/home/rep/Documents'),
}))
vi.mock('electron', () => ({ app: { getPath: stand.getPath }, dialog: { showSaveDialog: stand.showSaveDialog } }))

const { createPrinting, pdfFileName } = await import('../../../../src/main/shell/printing')

const folder = mkdtempSync(join(tmpdir(), 'satchel-printing-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

function fakeWindow() {
  const pdf = Buffer.from('%PDF-1.7 the document view as printed')
  const webContents = {
    printToPDF: vi.fn(async () => pdf),
    print: vi.fn((_options: unknown, done: (success: boolean) => void) => done(true)),
  }
  return { pdf, webContents, window: { isDestroyed: () => false, webContents } }
}

beforeEach(() => {
  stand.showSaveDialog.mockReset()
})

describe('Save as PDF…', () => {
  it('writes the bytes printToPDF returns to the path the save dialog chose', async () => {
    const { pdf, webContents, window } = fakeWindow()
    const chosen = join(folder, 'Quote Q-ABCD-0001.pdf')
    stand.showSaveDialog.mockResolvedValue({ canceled: false, filePath: chosen })
    const printing = createPrinting(() => window as never)

    expect(await printing.savePdf('Quote Q-ABCD-0001 Corner Shop')).toBe(chosen)
    expect(readFileSync(chosen)).toEqual(pdf)
    expect(webContents.printToPDF).toHaveBeenCalledTimes(1)
    // The dialog offers the document's name in the rep's Documents folder, as a PDF.
    expect(stand.showSaveDialog).toHaveBeenCalledWith(
      window,
      expect.objectContaining({ defaultPath: join('/home/rep/Documents', 'Quote Q-ABCD-0001 Corner Shop.pdf') }),
    )
  })

  it('does nothing when the dialog is cancelled: no PDF rendered, no file written', async () => {
    const { webContents, window } = fakeWindow()
    const chosen = join(folder, 'never.pdf')
    stand.showSaveDialog.mockResolvedValue({ canceled: true, filePath: chosen })
    const printing = createPrinting(() => window as never)

    expect(await printing.savePdf('Order 1001')).toBeNull()
    expect(webContents.printToPDF).not.toHaveBeenCalled()
    expect(existsSync(chosen)).toBe(false)
  })

  it('offers a plain file name, whatever the document is called', () => {
    expect(pdfFileName('../Order 7/8: "Corner"')).toBe('8 Corner.pdf')
    expect(pdfFileName('Quote Q-ABCD-0001.pdf')).toBe('Quote Q-ABCD-0001.pdf')
    expect(pdfFileName('')).toBe('Satchel document.pdf')
  })
})

describe('Print…', () => {
  it('opens the system dialog for the window and answers whether it printed', async () => {
    const { webContents, window } = fakeWindow()
    expect(await createPrinting(() => window as never).print()).toBe(true)
    expect(webContents.print).toHaveBeenCalledWith({ silent: false, printBackground: true }, expect.any(Function))
    expect(await createPrinting(() => undefined).print()).toBe(false)
  })
})
