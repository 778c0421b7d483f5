import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The documentation explains itself from a fresh clone: every relative link in README.md and docs/
 * reaches a file (and, with a #fragment, a heading) inside the repository, no path in them climbs out
 * of it (the service's contract once lived at `../shared/spec/`, which a clone does not have), and
 * every page under docs/ can be reached from the README.
 */
const root = process.cwd()

function markdownFiles(folder: string): string[] {
  if (!existsSync(folder)) return []
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) return markdownFiles(path)
    return name.endsWith('.md') ? [path] : []
  })
}

const pages = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))]
const shown = (path: string) => relative(root, path).split(sep).join('/')

/** The text outside fenced code blocks: a link or path inside a fence is an example, not a reference. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '))
}

const withoutCodeSpans = (text: string) => text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length))

/** Every link target of a page: inline `[text](target "title")` and reference definitions `[name]: target`. */
function linkTargets(text: string): string[] {
  const body = withoutCodeSpans(prose(text))
  const inline = [...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string)
  const references = [...body.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
    (m) => m[1] as string,
  )
  return [...inline, ...references]
}

/** Paths written as code that start by climbing a folder (`../x`): a clone has only what is under its root. */
function climbingPaths(text: string): string[] {
  return [...prose(text).matchAll(/`(\.\.\/[^`\s]*)`/g)].map((m) => m[1] as string)
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const match of prose(readFileSync(path, 'utf8')).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (match[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '')
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

function inside(path: string): boolean {
  const fromRoot = relative(root, path)
  return fromRoot !== '' && !fromRoot.startsWith('..') && !fromRoot.startsWith(sep)
}

/** What is wrong with one link of a page, or null when it holds. */
function problemOf(page: string, target: string): string | null {
  const [rawPath = '', fragment] = target.split('#', 2)
  const path = decodeURIComponent(rawPath)
  const file = path === '' ? page : resolve(dirname(page), path)
  if (path !== '' && !inside(file)) return `${target}: leaves the repository`
  if (!existsSync(file)) return `${target}: no such file`
  if (
    fragment !== undefined &&
    fragment !== '' &&
    file.endsWith('.md') &&
    !anchorsOf(file).has(decodeURIComponent(fragment).toLowerCase())
  ) {
    return `${target}: no heading "#${fragment}" in ${shown(file)}`
  }
  return null
}

describe('documentation links', () => {
  it('reads README.md and every page under docs/', () => {
    expect(pages.map(shown)).toContain('README.md')
  })

  it('resolves every relative link inside the repository, to a file and a heading that exist', () => {
    const problems = pages.flatMap((page) =>
      linkTargets(readFileSync(page, 'utf8'))
        .filter((target) => !isExternal(target))
        .map((target) => problemOf(page, target))
        .filter((problem): problem is string => problem !== null)
        .map((problem) => `${shown(page)}: ${problem}`),
    )
    expect(problems).toEqual([])
  })

  it('names no path outside the repository', () => {
    const problems = pages.flatMap((page) =>
      climbingPaths(readFileSync(page, 'utf8'))
        .filter((path) => !inside(resolve(dirname(page), path)))
        .map((path) => `${shown(page)}: ${path} is outside the repository`),
    )
    expect(problems).toEqual([])
  })

  it('reaches every page under docs/ from README.md', () => {
    const reached = new Set<string>()
    const queue = [join(root, 'README.md')]
    while (queue.length > 0) {
      const page = queue.pop() as string
      if (reached.has(page)) continue
      reached.add(page)
      for (const target of linkTargets(readFileSync(page, 'utf8'))) {
        if (isExternal(target)) continue
        const path = decodeURIComponent(target.split('#', 1)[0] ?? '')
        const file = path === '' ? page : resolve(dirname(page), path)
        if (file.endsWith('.md') && inside(file) && existsSync(file)) queue.push(file)
      }
    }
    expect(pages.filter((page) => !reached.has(page)).map(shown)).toEqual([])
  })
})
