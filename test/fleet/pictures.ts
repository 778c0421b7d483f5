/**
 * The item pictures of one laptop in the fleet, modelled on the pass (src/main/pictures/item-pictures.ts)
 * and run through its real single-item reads (AttachmentReads: one at a time, held to Retry-After,
 * the background's hourly cap). What is modelled: the catalog's changes (items whose updated_at moves,
 * a share of them among the laptop's needed items), and the image host (counted, not the service).
 * An API key's listing carries no image address, so a needed item whose version moved costs one
 * single-item read to the service and a conditional request to the image host; any other cached item
 * that moved costs the image host's conditional request alone; an item never read costs a read under
 * the hourly cap. With a user session's listing (image_url) no read is made at all.
 */
import { AttachmentReads, backgroundReadsPerHour, ReadHeld } from '../../src/main/pictures/attachments'

const day = 24 * 3600_000

export interface PictureModel {
  /** Live items in the catalog (the demo double: about 3,000). */
  catalogItems: number
  /** Items of the day's open orders and customers, and those viewed: read again when their version moves. */
  neededItems: number
  /** Share of the catalog whose updated_at moves in a day (a price, stock flag or text changed). */
  changesPerDay: number
  /** Share of moved items whose picture itself changed (a 200 with the picture; else a 304). */
  pictureChanges: number
  /** Items a laptop has never read (a new laptop filling its cache); 0 once filled. */
  unread: number
  /** Bytes of a single-item read's reply (bench:pictures: about 900 per item) and of a changed picture. */
  readBytes: number
  pictureBytes: number
}

export const defaultPictureModel: PictureModel = {
  catalogItems: 3_000,
  neededItems: 300,
  changesPerDay: 0.02,
  pictureChanges: 0.1,
  unread: 0,
  readBytes: 900,
  pictureBytes: 150_000,
}

export interface PictureFigures {
  serviceReads: number
  serviceBytes: number
  hostRequests: number
  hostBytes: number
}

/** One laptop's pictures: `changed` after each sync, `pass` after each sync and every quarter hour. */
export function laptopPictures(
  model: PictureModel,
  read: () => Promise<void>,
  now: () => number,
  random: () => number,
  figures: PictureFigures,
) {
  const reads = new AttachmentReads({ getCatalogItem: read }, now, backgroundReadsPerHour)
  let needed = 0
  let cached = 0
  let unread = model.unread
  let running = false
  const host = () => {
    figures.hostRequests++
    if (random() < model.pictureChanges) figures.hostBytes += model.pictureBytes
  }
  const readOne = async (background: boolean): Promise<boolean> => {
    try {
      await reads.read('catalog', 'item', background)
      figures.serviceReads++
      figures.serviceBytes += model.readBytes
      return true
    } catch (error) {
      if (!(error instanceof ReadHeld) || error.made) figures.serviceReads++
      return false
    }
  }
  return {
    /** A sync brought the catalog's changes since the last one (`ms` of them). */
    changed(ms: number): void {
      const expected = (model.catalogItems * model.changesPerDay * ms) / day
      const count = Math.floor(expected + random())
      for (let i = 0; i < count; i++) {
        if (random() < model.neededItems / model.catalogItems) needed++
        else cached++
      }
    },
    async pass(): Promise<void> {
      if (running) return
      running = true
      try {
        while (needed > 0 && (await readOne(false))) {
          needed--
          host()
        }
        for (; cached > 0; cached--) host()
        while (unread > 0 && (await readOne(true))) {
          unread--
          host()
        }
      } finally {
        running = false
      }
    },
  }
}
