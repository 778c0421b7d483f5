import { crc32, deflateRawSync } from 'node:zlib'

export interface ZipFile {
  /** A path inside the archive, with forward slashes. */
  name: string
  data: Buffer | string
}

/**
 * A zip archive (PKWARE APPNOTE 6.3, deflate, no zip64) of a few small files, written whole in
 * memory: the support bundle is a few megabytes at most, and node's zlib has deflate and crc32, so
 * no archiver package is needed for it. Names are UTF-8 (flag bit 11).
 */
export function zip(files: readonly ZipFile[], at: Date = new Date()): Buffer {
  const { time, date } = dosDateTime(at)
  const locals: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8')
    const data = typeof file.data === 'string' ? Buffer.from(file.data, 'utf8') : file.data
    const deflated = deflateRawSync(data)
    const checksum = crc32(data)
    if (offset + deflated.length > 0xffff_ffff || data.length > 0xffff_ffff) throw new Error('The archive is too large for a zip without zip64')

    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4) // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt16LE(8, 8) // deflate
    local.writeUInt16LE(time, 10)
    local.writeUInt16LE(date, 12)
    local.writeUInt32LE(checksum, 14)
    local.writeUInt32LE(deflated.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    locals.push(local, name, deflated)

    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(0x031e, 4) // made by: Unix, spec 3.0
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x0800, 8)
    entry.writeUInt16LE(8, 10)
    entry.writeUInt16LE(time, 12)
    entry.writeUInt16LE(date, 14)
    entry.writeUInt32LE(checksum, 16)
    entry.writeUInt32LE(deflated.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(name.length, 28)
    // extra, comment, disk number, internal attributes: 0
    entry.writeUInt32LE((0o100600 << 16) >>> 0, 38) // a regular file, readable by its owner only
    entry.writeUInt32LE(offset, 42)
    central.push(entry, name)

    offset += local.length + name.length + deflated.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

/** MS-DOS time and date fields, in local time as zip tools read them; 1980 is the earliest they hold. */
function dosDateTime(at: Date): { time: number; date: number } {
  const year = Math.max(at.getFullYear(), 1980)
  return {
    time: (at.getHours() << 11) | (at.getMinutes() << 5) | Math.floor(at.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getMonth() + 1) << 5) | at.getDate(),
  }
}
