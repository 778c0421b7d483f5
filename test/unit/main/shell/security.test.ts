import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Session, WebContents } from 'electron'
import { describe, expect, it, vi } from 'vitest'
import {
  contentSecurityPolicy,
  createAppUrlCheck,
  externalLinkTarget,
  guardWebContents,
  navigationGuard,
  secureSession,
  secureWebPreferences,
  windowOpenHandler,
} from '../../../../src/main/shell/security'

const rendererFile = resolve('/opt/Satchel/resources/app.asar/out/renderer/index.html')
const appUrl = pathToFileURL(rendererFile).href
const isAppUrl = createAppUrlCheck({ rendererFile })

function parsePolicy(policy: string): Map<string, string[]> {
  const directives = new Map<string, string[]>()
  for (const part of policy.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/)
    if (name) directives.set(name.toLowerCase(), values)
  }
  return directives
}

function metaPolicy(): Map<string, string[]> {
  const html = readFileSync(join(process.cwd(), 'src/renderer/index.html'), 'utf8')
  const match = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)
  if (!match?.[1]) throw new Error('src/renderer/index.html has no CSP meta tag')
  return parsePolicy(match[1])
}

/** The sources a policy allows for a fetch directive, falling back to default-src as browsers do. */
function sourcesFor(policy: Map<string, string[]>, directive: string): string[] {
  return policy.get(directive) ?? policy.get('default-src') ?? ['*']
}

describe('the app URL check', () => {
  it('accepts only the built index.html, with any hash route', () => {
    expect(isAppUrl(appUrl)).toBe(true)
    expect(isAppUrl(`${appUrl}#/settings`)).toBe(true)
    expect(isAppUrl('file:///tmp/evil/out/renderer/index.html')).toBe(false)
    expect(isAppUrl('https://example.com/out/renderer/index.html')).toBe(false)
    expect(isAppUrl('not a url')).toBe(false)
  })

  it('accepts only the dev server origin in development', () => {
    const dev = createAppUrlCheck({ rendererFile, devServerUrl: 'http://localhost:5173/' })
    expect(dev('http://localhost:5173/#/settings')).toBe(true)
    expect(dev('http://localhost:5174/')).toBe(false)
    expect(dev(appUrl)).toBe(false)
  })
})

describe('webPreferences', () => {
  it('isolates, sandboxes and disables Node, webview, insecure content and (in production) devtools', () => {
    const preferences = secureWebPreferences('/app/preload.js', false)
    expect(preferences).toMatchObject({
      preload: '/app/preload.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    })
    expect(preferences).not.toHaveProperty('enableBlinkFeatures')
    expect(secureWebPreferences('/app/preload.js', true).devTools).toBe(true)
  })
})

describe('the Content-Security-Policy header', () => {
  const production = parsePolicy(contentSecurityPolicy())

  it('allows only bundled scripts: no inline script, no eval, no remote hosts', () => {
    expect(production.get('script-src')).toEqual(["'self'"])
    expect(production.get('default-src')).toEqual(["'none'"])
    expect(contentSecurityPolicy()).not.toMatch(/unsafe-eval|wasm-unsafe-eval|https?:|\*/)
    expect(production.get('connect-src')).toEqual(["'self'"])
    for (const directive of ['object-src', 'base-uri', 'form-action', 'frame-src', 'frame-ancestors']) {
      expect(production.get(directive), directive).toEqual(["'none'"])
    }
  })

  it('is at least as strict as the meta tag in src/renderer/index.html for every directive', () => {
    const meta = metaPolicy()
    expect(meta.get('script-src') ?? meta.get('default-src')).toEqual(["'self'"])
    const fetchDirectives = [
      'script-src',
      'style-src',
      'img-src',
      'font-src',
      'connect-src',
      'object-src',
      'media-src',
      'frame-src',
      'worker-src',
      'manifest-src',
    ]
    for (const directive of fetchDirectives) {
      const allowedByMeta = sourcesFor(meta, directive)
      for (const source of sourcesFor(production, directive)) {
        if (source === "'none'") continue
        expect(allowedByMeta, `${directive} ${source}`).toContain(source)
      }
    }
    for (const directive of ['base-uri', 'form-action']) expect(production.get(directive)).toEqual(meta.get(directive))
  })

  it('lets the dev server’s hot-reload socket through in development only', () => {
    const development = parsePolicy(contentSecurityPolicy('http://localhost:5173'))
    expect(development.get('connect-src')).toEqual(["'self'", 'ws://localhost:5173'])
    expect(development.get('script-src')).toEqual(["'self'"])
  })
})

type HeadersListener = (
  details: { url: string; responseHeaders?: Record<string, string[]> },
  callback: (response: { responseHeaders?: Record<string, string[]>; cancel?: boolean }) => void,
) => void
type RequestListener = (
  details: { url: string; webContentsId?: number },
  callback: (response: { cancel?: boolean }) => void,
) => void

function fakeSession() {
  const handlers: {
    headers?: HeadersListener
    request?: RequestListener
    permissionRequest?: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void
    permissionCheck?: (...args: unknown[]) => boolean
    deviceCheck?: (...args: unknown[]) => boolean
  } = {}
  const session = {
    webRequest: {
      onHeadersReceived: (listener: HeadersListener) => (handlers.headers = listener),
      onBeforeRequest: (listener: RequestListener) => (handlers.request = listener),
    },
    setPermissionRequestHandler: (handler: typeof handlers.permissionRequest) => (handlers.permissionRequest = handler),
    setPermissionCheckHandler: (handler: typeof handlers.permissionCheck) => (handlers.permissionCheck = handler),
    setDevicePermissionHandler: (handler: typeof handlers.deviceCheck) => (handlers.deviceCheck = handler),
  }
  return { session: session as unknown as Session, handlers }
}

function headersFor(listener: HeadersListener | undefined, url: string, responseHeaders?: Record<string, string[]>) {
  let response: { responseHeaders?: Record<string, string[]> } | undefined
  listener?.({ url, ...(responseHeaders ? { responseHeaders } : {}) }, (r) => (response = r))
  return response
}

describe('the session rules', () => {
  it('sends the CSP header with the app’s files and the dev server’s pages, replacing any other', () => {
    const { session, handlers } = fakeSession()
    secureSession(session)
    const response = headersFor(handlers.headers, appUrl, {
      'content-security-policy': ['default-src *'],
      'Content-Type': ['text/html'],
    })
    expect(response?.responseHeaders).toEqual({
      'Content-Type': ['text/html'],
      'Content-Security-Policy': [contentSecurityPolicy()],
    })

    const dev = fakeSession()
    secureSession(dev.session, { devServerUrl: 'http://localhost:5173' })
    expect(
      headersFor(dev.handlers.headers, 'http://localhost:5173/')?.responseHeaders?.['Content-Security-Policy'],
    ).toEqual([contentSecurityPolicy('http://localhost:5173')])
    // DevTools and anything else keep their own headers.
    expect(headersFor(dev.handlers.headers, 'devtools://devtools/bundled/inspector.html')).toEqual({})
  })

  it('cancels any network request from a page, allowing local files and the dev server', () => {
    const blocked = vi.fn()
    const { session, handlers } = fakeSession()
    secureSession(session, { devServerUrl: 'http://localhost:5173', onBlocked: blocked })
    const decide = (url: string, webContentsId?: number) => {
      let cancel: boolean | undefined
      handlers.request?.(
        { url, ...(webContentsId !== undefined ? { webContentsId } : {}) },
        (r) => (cancel = r.cancel ?? false),
      )
      return cancel
    }
    expect(decide('https://orders.example.com/v1/catalogs', 1)).toBe(true)
    expect(decide('http://evil.example/x.js', 1)).toBe(true)
    expect(decide('ws://localhost:9999/', 1)).toBe(true)
    expect(decide(appUrl, 1)).toBe(false)
    expect(decide('data:image/png;base64,AAAA', 1)).toBe(false)
    expect(decide('ws://localhost:5173/', 1)).toBe(false)
    // Main's own requests (no webContents) are not the renderer's and pass.
    expect(decide('https://updates.example.com/latest.yml')).toBe(false)
    expect(blocked).toHaveBeenCalledWith('request', 'https://orders.example.com/v1/catalogs')
  })

  it('denies every permission request and every permission and device check', () => {
    const { session, handlers } = fakeSession()
    secureSession(session)
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'openExternal',
      'fullscreen',
    ]) {
      const callback = vi.fn()
      handlers.permissionRequest?.({}, permission, callback)
      expect(callback, permission).toHaveBeenCalledWith(false)
      expect(handlers.permissionCheck?.(null, permission, 'file://', {})).toBe(false)
    }
    expect(handlers.deviceCheck?.({ deviceType: 'usb', origin: 'file://' })).toBe(false)
  })
})

describe('links leaving the app', () => {
  it('only well-formed https links without credentials go to the system browser', () => {
    expect(externalLinkTarget('https://example.com/help?q=1')).toBe('https://example.com/help?q=1')
    expect(externalLinkTarget('http://example.com/')).toBeUndefined()
    expect(externalLinkTarget('file:///etc/passwd')).toBeUndefined()
    expect(externalLinkTarget('javascript:alert(1)')).toBeUndefined()
    expect(externalLinkTarget('smb://server/share')).toBeUndefined()
    expect(externalLinkTarget('https://user:pass@example.com/')).toBeUndefined()
    expect(externalLinkTarget('https//broken')).toBeUndefined()
  })
})

function guardOptions() {
  return { isAppUrl, openExternal: vi.fn<(url: string) => void>(), isDevelopment: false, onBlocked: vi.fn() }
}

const navigation = (url: string, isMainFrame = true) => ({ url, isMainFrame, preventDefault: vi.fn() })

describe('navigation, redirect, window-open and webview guards', () => {
  it('blocks navigation away from the app and opens https links in the browser instead', () => {
    const options = guardOptions()
    const guard = navigationGuard(options, 'navigation')
    const toWeb = navigation('https://example.com/')
    guard(toWeb)
    expect(toWeb.preventDefault).toHaveBeenCalled()
    expect(options.openExternal).toHaveBeenCalledWith('https://example.com/')

    const toFile = navigation('file:///etc/passwd')
    guard(toFile)
    expect(toFile.preventDefault).toHaveBeenCalled()
    expect(options.openExternal).toHaveBeenCalledTimes(1)

    const inApp = navigation(`${appUrl}#/settings`)
    guard(inApp)
    expect(inApp.preventDefault).not.toHaveBeenCalled()
  })

  it('blocks redirects away from the app without opening anything', () => {
    const options = guardOptions()
    const redirect = navigation('https://evil.example/')
    navigationGuard(options, 'redirect')(redirect)
    expect(redirect.preventDefault).toHaveBeenCalled()
    expect(options.openExternal).not.toHaveBeenCalled()
  })

  it('denies every window.open, sending only https links to the browser', () => {
    const options = guardOptions()
    const handler = windowOpenHandler(options)
    expect(handler({ url: 'https://example.com/doc' })).toEqual({ action: 'deny' })
    expect(handler({ url: 'http://example.com/' })).toEqual({ action: 'deny' })
    expect(handler({ url: appUrl })).toEqual({ action: 'deny' })
    expect(options.openExternal.mock.calls).toEqual([['https://example.com/doc']])
  })

  it('attaches every guard to a webContents: navigation, frames, redirects, webview, window.open, devtools', () => {
    const options = guardOptions()
    const contents = Object.assign(new EventEmitter(), { setWindowOpenHandler: vi.fn(), closeDevTools: vi.fn() })
    guardWebContents(contents as unknown as WebContents, options)

    const away = navigation('https://example.com/')
    contents.emit('will-navigate', away)
    expect(away.preventDefault).toHaveBeenCalled()

    const frame = navigation('https://ads.example/', false)
    contents.emit('will-frame-navigate', frame)
    expect(frame.preventDefault).toHaveBeenCalled()

    const redirect = navigation('https://evil.example/')
    contents.emit('will-redirect', redirect)
    expect(redirect.preventDefault).toHaveBeenCalled()

    const webview = { preventDefault: vi.fn() }
    contents.emit('will-attach-webview', webview, {}, {})
    expect(webview.preventDefault).toHaveBeenCalled()

    const handler = contents.setWindowOpenHandler.mock.calls[0]?.[0] as (details: { url: string }) => unknown
    expect(handler({ url: 'https://example.com/' })).toEqual({ action: 'deny' })

    contents.emit('devtools-opened')
    expect(contents.closeDevTools).toHaveBeenCalled()
    // Main frame navigations are handled once, by will-navigate: one click, one browser tab.
    expect(options.openExternal).toHaveBeenCalledTimes(2)
  })
})
