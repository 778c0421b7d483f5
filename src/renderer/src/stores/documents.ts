import { defineStore } from 'pinia'
import type { DocumentKind, PrintableDocument } from '../../../shared/quotes'
import { api, unwrap } from '../api'
import { ApiError } from '../errors'

/** Printable documents, and handing the window to the printer or to a PDF (the desktop app does both). */
export const useDocumentsStore = defineStore('documents', () => {
  const get = (kind: DocumentKind, ref: string): Promise<PrintableDocument> => unwrap(api.getDocument({ kind, ref }))

  /** The desktop app's print dialog; elsewhere (a browser), the browser's own. */
  async function print(): Promise<void> {
    try {
      await unwrap(api.printDocument())
    } catch (error) {
      if (error instanceof ApiError && error.error.code === 'CONFLICT') window.print()
      else throw error
    }
  }

  /** Answers the path written, or null when the rep cancelled the save dialog. */
  async function savePdf(fileName: string): Promise<string | null> {
    return (await unwrap(api.saveDocumentPdf({ fileName }))).path
  }

  return { get, print, savePdf }
})
