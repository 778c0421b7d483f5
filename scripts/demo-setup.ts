/**
 * What `npm run demo` sets up before any window (scripts/demo.ts), apart so a test can start it:
 * two ordering-service doubles with demo data, and the connection Satchel gets to each. Main signs in
 * as a user session (the supplier's user on the double), so what a rep does after Send (hold,
 * change, submit an order in review, new customers) can be tried from the first command; Coastal
 * Supply signs in with an API key, as an integration does, and shows what a key alone offers.
 */
import type { DemoConnection } from '../src/main/profiles'
import { startService } from '../test/service/index'
import type { RunningService, StartServiceOptions } from '../test/service/types'

export interface DemoServices {
  services: RunningService[]
  connections: DemoConnection[]
  /** What the demo prints about them: which profile is which, how each signs in, the headers to try. */
  describe(): string
  close(): Promise<void>
}

const demoProfiles = [
  { name: 'Main', seed: 1, session: true, catalogPrefix: '' },
  // A second supplier with catalogs of its own, so the switcher changes what is on screen.
  { name: 'Coastal Supply', seed: 7, session: false, catalogPrefix: 'Coastal ' },
] as const

/** `port`: the first double's (the second takes the next; 0 = any free port for each). */
export async function startDemoServices(options: {
  size: StartServiceOptions['size']
  port: number
}): Promise<DemoServices> {
  // The control surface lets the demo play the supplier after Send (ship, backorder, hold, cancel).
  const services = await Promise.all(
    demoProfiles.map((profile, index) =>
      startService({
        size: options.size,
        seed: profile.seed,
        port: options.port === 0 ? 0 : options.port + index,
        httpControl: true,
      }),
    ),
  )
  services.forEach((service, index) => {
    const prefix = demoProfiles[index]!.catalogPrefix
    if (prefix)
      for (const catalog of service.control.catalogs())
        service.control.update('catalog', String(catalog.guid), { name: `${prefix}${String(catalog.name)}` })
  })
  const connections = services.map((service, index): DemoConnection => {
    const profile = demoProfiles[index]!
    const { apiKey, apiSecret, userGuid, userToken, supplierGuid } = service.credentials
    return {
      name: profile.name,
      baseUrl: service.url,
      auth: profile.session
        ? { kind: 'session', userGuid, userToken, supplierGuid }
        : { kind: 'apiKey', apiKey, apiSecret },
    }
  })
  return {
    services,
    connections,
    describe: () => describeDemo(services, connections, String(options.size)),
    close: () => Promise.all(services.map((service) => service.close())).then(() => undefined),
  }
}

function describeDemo(services: RunningService[], connections: DemoConnection[], size: string): string {
  const lines: string[] = []
  for (const [index, connection] of connections.entries()) {
    const service = services[index]!
    const { auth } = connection
    if (auth.kind === 'session') {
      lines.push(
        `${connection.name}: ordering-service double (${size}) at ${service.url}, signed in as a user session`,
        '  (Change…, Submit… and New customer are offered here: hold, change, submit and new customers)',
        `  userGuid: ${auth.userGuid}`,
        `  userToken: ${auth.userToken ?? ''}`,
        `  supplierGuid: ${auth.supplierGuid}`,
      )
    } else {
      lines.push(
        `${connection.name}: ordering-service double (${size}) at ${service.url}, signed in with an API key`,
        '  (orders are sent; changes after Send ask for a user session)',
        `  x-apiKey: ${auth.apiKey}`,
        `  x-apiSecret: ${auth.apiSecret ?? ''}`,
      )
    }
  }
  lines.push(
    `  Play the supplier: curl -s -X POST ${services[0]!.url}/__control/fulfilOrder -H 'content-type: application/json' ` +
      `-d '{"orderGuid":"<guid>","step":{"kind":"ship","lines":[{"itemNo":1,"qty":1}],"backorderRest":true}}'`,
  )
  return `${lines.join('\n')}\n\n`
}
