/**
 * Where an item's pictures are, in the shapes the interface leaves open ("structure not shown"):
 * the choices are listed in test/service/README.md. The listing's image URL, where it has one, is
 * read by the local copy (local/catalog-items/pictures.ts); the single-item read's attachments are
 * read here.
 */

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null)

const imageExtensions = /\.(jpe?g|png|webp|gif)(\?|#|$)/i

/** An attachment that is a picture: typed so, or with a picture's media type, or untyped with a picture's name. */
function isPicture(attachment: Json, address: string): boolean {
  const type = text(attachment.type)?.toLowerCase() ?? text(attachment.content_type)?.toLowerCase() ?? null
  if (type === 'image' || (type?.startsWith('image/') && type !== 'image/svg+xml')) return true
  if (type !== null) return false
  return imageExtensions.test(text(attachment.name) ?? address)
}

/**
 * The item's picture addresses, primary first, as sent (perhaps relative): from `attachments` (each
 * a bare address, or an object with `url`, else `path`, else `href`), then the item's own bare
 * address fields when it has no attachments.
 */
export function pictureAddresses(item: unknown): string[] {
  if (!isObject(item)) return []
  const found: { address: string; primary: boolean }[] = []
  const attachments = Array.isArray(item.attachments) ? item.attachments : []
  for (const attachment of attachments) {
    const bare = text(attachment)
    if (bare !== null) {
      found.push({ address: bare, primary: false })
      continue
    }
    if (!isObject(attachment)) continue
    const address = text(attachment.url) ?? text(attachment.path) ?? text(attachment.href)
    if (address === null || !isPicture(attachment, address)) continue
    found.push({ address, primary: attachment.is_primary === true || attachment.isPrimary === true })
  }
  if (found.length === 0) {
    const own = text(item.image_url) ?? text(item.imageUrl) ?? text(item.image)
    if (own !== null) found.push({ address: own, primary: true })
  }
  // Stable: among several marked primary, or none, the service's order stands.
  const ordered = [...found.filter((each) => each.primary), ...found.filter((each) => !each.primary)]
  return [...new Set(ordered.map((each) => each.address))]
}
