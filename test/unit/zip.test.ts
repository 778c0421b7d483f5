import { describe, expect, it } from 'vitest'
import { zip } from '../../src/main/core/zip'
import { unzipAll } from '../support/unzip'

describe('zip', () => {
  it('writes an archive unzip checks and opens, names and bytes as given', () => {
    const big = 'line of a log file, repeated\n'.repeat(20_000)
    const archive = zip([
      { name: 'about.json', data: '{"app":"Satchel"}' },
      { name: 'logs/main.log', data: big },
      { name: 'empty.txt', data: '' },
      { name: 'naïve – ünïcode.txt', data: Buffer.from('café ✓', 'utf8') },
    ])
    expect(archive.length).toBeLessThan(big.length / 10)
    const files = unzipAll(archive)
    expect([...files.keys()].sort()).toEqual(['about.json', 'empty.txt', 'logs/main.log', 'naïve – ünïcode.txt'])
    expect(files.get('about.json')).toBe('{"app":"Satchel"}')
    expect(files.get('logs/main.log')).toBe(big)
    expect(files.get('empty.txt')).toBe('')
    expect(files.get('naïve – ünïcode.txt')).toBe('café ✓')
  })
})
