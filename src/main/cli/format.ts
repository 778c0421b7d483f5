/** Plain-text output for people: aligned columns, ages, a progress bar. */

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n')
}

export function formatAge(ms: number): string {
  if (ms < 0) return 'in the future: the clock has moved back'
  const minutes = Math.round(ms / 60_000)
  if (minutes < 1) return 'just now'
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 48) return `${hours} h ago`
  return `${Math.round(hours / 24)} days ago`
}

export function progressBar(fraction: number | null, width = 24): string {
  if (fraction === null) return `[${'·'.repeat(width)}]`
  const filled = Math.max(0, Math.min(width, Math.round(fraction * width)))
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%`
}
