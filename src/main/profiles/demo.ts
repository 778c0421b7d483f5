import { call } from '../core/handlers'
import type { ConnectionInput } from '../../shared/contract'
import type { ProfileManager } from './manager'

/** A demo profile's connection: an API key, or a user session (scripts/demo-setup.ts signs Main in as one). */
export interface DemoConnection {
  name: string
  baseUrl: string
  auth: ConnectionInput['auth']
}

/**
 * `npm run demo`'s profiles: the first connection goes to the profile on screen, each further one to
 * a profile of its own (added when missing), and the first ends on screen.
 *
 * With `waitForSync` (the default) every profile is synced once before this returns. Without it,
 * each profile syncs as the app syncs a newly connected one, in the background (saving a connection
 * starts a sync): the on-screen profile is connected last, so its first sync runs while the window is
 * in use, and the others sync when the rep switches to them.
 */
export async function connectDemoProfiles(
  profiles: ProfileManager,
  connections: readonly DemoConnection[],
  say: (line: string) => void = () => undefined,
  options: { waitForSync?: boolean } = {},
): Promise<void> {
  const first = profiles.onScreen().profile.id
  if (options.waitForSync === false) {
    const order = [...connections.entries()]
      .filter(([index]) => index > 0)
      .concat(connections.length > 0 ? [[0, connections[0]!]] : [])
    for (const [index, connection] of order) {
      await profiles.switchTo(index === 0 ? first : await demoProfileId(profiles, connection))
      await saveDemoConnection(profiles, connection)
      if (index === 0) say(`First sync of ${connection.name} runs in the background…`)
    }
    return
  }
  for (const [index, connection] of connections.entries()) {
    if (index > 0) await profiles.switchTo(await demoProfileId(profiles, connection))
    await saveDemoConnection(profiles, connection)
    say(`First sync of ${connection.name}…`)
    const synced = await call(profiles.handlers, 'syncNow', {})
    if (!synced.ok || !synced.value.ok)
      throw new Error(`the first sync of ${connection.name} failed: ${JSON.stringify(synced)}`)
  }
  await profiles.switchTo(first)
}

/** The profile named as the connection, added when missing. */
async function demoProfileId(profiles: ProfileManager, connection: DemoConnection): Promise<string> {
  const existing = profiles
    .list()
    .profiles.find((profile) => profile.name.toLowerCase() === connection.name.toLowerCase())
  const id =
    existing?.id ??
    (await profiles.add(connection.name)).profiles.find((profile) => profile.name === connection.name)?.id
  if (!id) throw new Error(`the demo profile ${connection.name} was not added`)
  return id
}

async function saveDemoConnection(profiles: ProfileManager, connection: DemoConnection): Promise<void> {
  const saved = await call(profiles.handlers, 'saveConnection', {
    baseUrl: connection.baseUrl,
    auth: connection.auth,
  })
  if (!saved.ok) throw new Error(`the demo connection for ${connection.name} was refused: ${saved.error.message}`)
}
