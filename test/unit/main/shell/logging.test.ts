import log from 'electron-log/node'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { configureFileLogging, createRedactor, formatEntry, newRequestId } from '../../../../src/main/shell/logging'

let directory: string
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-logs-'))
})
afterEach(() => {
  rmSync(directory, { recursive: true, force: true })
})

describe('redaction', () => {
  const redactor = createRedactor()

  it('replaces secret fields at any depth, keeping flags and harmless fields', () => {
    expect(
      redactor.redact({
        headers: { 'x-apiKey': 'key-1', 'x-apiSecret': 's3cr3t-value', userGuid: 'u-1' },
        auth: { apiSecret: 'another-secret', userToken: 'tok', hasSecret: true, hasToken: false },
        list: [{ password: 'hunter22' }, { authorization: 'Bearer abc' }],
        tokenOptions: { catalogLock: true },
      }),
    ).toEqual({
      headers: { 'x-apiKey': 'key-1', 'x-apiSecret': '[redacted]', userGuid: 'u-1' },
      auth: { apiSecret: '[redacted]', userToken: '[redacted]', hasSecret: true, hasToken: false },
      list: [{ password: '[redacted]' }, { authorization: '[redacted]' }],
      tokenOptions: { catalogLock: true },
    })
  })

  it('masks secrets written into free text: headers, query strings, JSON, JWTs, bearer tokens', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdEFGHijkl'
    expect(redactor.redactText('x-apiSecret: abc123def')).toBe('x-apiSecret: [redacted]')
    expect(redactor.redactText('GET /v1/orders?userToken=abc123&limit=5')).toBe(
      'GET /v1/orders?userToken=[redacted]&limit=5',
    )
    expect(redactor.redactText('{"apiSecret":"abc123","apiKey":"k"}')).toBe('{"apiSecret":"[redacted]","apiKey":"k"}')
    expect(redactor.redactText(`session ${jwt} expired`)).toBe('session [redacted] expired')
    expect(redactor.redactText('Authorization: Bearer abc.def-ghi')).toBe('Authorization: [redacted]')
    expect(redactor.redactText('{"hasSecret":true,"hasToken":false}')).toBe('{"hasSecret":true,"hasToken":false}')
  })

  it('masks a registered secret value wherever it appears, and in error stacks', () => {
    const known = createRedactor()
    known.addSecret('plain-looking-value-42')
    expect(known.redactText('the server echoed plain-looking-value-42 back')).toBe('the server echoed [redacted] back')
    const redactedError = known.redact(new Error('failed with plain-looking-value-42')) as string
    expect(redactedError).toContain('Error: failed with [redacted]')
    expect(redactedError).not.toContain('plain-looking-value-42')
  })

  it('masks a registered value in every spelling the client masks: any case, URL-encoded, as a short token', () => {
    const known = createRedactor()
    known.addSecret('Plain/Looking+Value')
    known.addSecret('k3y')
    expect(known.redactText('echoed X-APISECRET PLAIN/LOOKING+VALUE and Plain%2FLooking%2BValue')).toBe(
      'echoed X-APISECRET [redacted] and [redacted]',
    )
    expect(known.redactText('key k3y, not mik3ys')).toBe('key [redacted], not mik3ys')
  })

  it('survives cycles and buffers', () => {
    const cyclic: Record<string, unknown> = { name: 'a' }
    cyclic.self = cyclic
    expect(redactor.redact({ cyclic, blob: Buffer.from('secret bytes') })).toEqual({
      cyclic: { name: 'a', self: '[…]' },
      blob: '<12 bytes>',
    })
  })
})

describe('log lines', () => {
  it('lead with the request id', () => {
    const id = newRequestId()
    expect(id).toMatch(/^[0-9a-f]{8}$/)
    expect(
      formatEntry(createRedactor(), 'service request', { requestId: id, method: 'GET', path: '/v1/catalogs' }),
    ).toBe(`[req:${id}] service request {"method":"GET","path":"/v1/catalogs"}`)
  })
})

describe('the log file', () => {
  it('rotates at the size limit, keeps a bounded number of old files, and is private to its owner', () => {
    const writer = log.create({ logId: `rotation-${Date.now()}` })
    const logging = configureFileLogging(writer, { directory, maxBytes: 2_000, keep: 3, level: 'info' })
    for (let i = 0; i < 200; i++)
      logging.logger.info('order saved', { requestId: newRequestId(), index: i, note: 'x'.repeat(40) })
    const files = readdirSync(directory).sort()
    expect(files).toEqual(['main.1.log', 'main.2.log', 'main.3.log', 'main.log'])
    for (const file of files) expect(statSync(join(directory, file)).size).toBeLessThan(2_000 + 400)
    expect(readFileSync(join(directory, 'main.log'), 'utf8')).toContain('"index":199')
    if (process.platform !== 'win32') expect(statSync(join(directory, 'main.log')).mode & 0o777).toBe(0o600)
  })

  it('redacts what other code logs straight through electron-log too (electron-updater does)', () => {
    const writer = log.create({ logId: `hook-${Date.now()}` })
    const logging = configureFileLogging(writer, { directory, level: 'debug' })
    logging.redactor.addSecret('the-actual-secret')
    writer.info(
      'downloading',
      { requestHeaders: { 'x-apiSecret': 'the-actual-secret' } },
      'with the-actual-secret inline',
    )
    const text = readFileSync(logging.file, 'utf8')
    expect(text).toContain('downloading')
    expect(text).not.toContain('the-actual-secret')
  })

  it('filters by level', () => {
    const writer = log.create({ logId: `level-${Date.now()}` })
    const logging = configureFileLogging(writer, { directory, level: 'warn' })
    logging.logger.info('chatty')
    logging.logger.warn('worth keeping')
    const text = readFileSync(logging.file, 'utf8')
    expect(text).not.toContain('chatty')
    expect(text).toContain('[warn]')
  })
})
