import { call } from '../core/handlers'
import type { ProfileManager } from './manager'

export interface DemoConnection {
  name: string
  baseUrl: string
  apiKey: string
  apiSecret: string
}

/**
 * `npm run demo`'s profiles: the first connection goes to the profile on screen, each further one to
 * a profile of its own (added when missing); every profile is synced once, and the first ends on screen.
 */
export async function connectDemoProfiles(profiles: ProfileManager, connections: readonly DemoConnection[], say: (line: string) => void = () => undefined): Promise<void> {
  const first = profiles.onScreen().profile.id
  for (const [index, connection] of connections.entries()) {
    if (index > 0) {
      const existing = profiles.list().profiles.find((profile) => profile.name.toLowerCase() === connection.name.toLowerCase())
      const id = existing?.id ?? (await profiles.add(connection.name)).profiles.find((profile) => profile.name === connection.name)?.id
      if (!id) throw new Error(`the demo profile ${connection.name} was not added`)
      await profiles.switchTo(id)
    }
    const saved = await call(profiles.handlers, 'saveConnection', { baseUrl: connection.baseUrl, auth: { kind: 'apiKey', apiKey: connection.apiKey, apiSecret: connection.apiSecret } })
    if (!saved.ok) throw new Error(`the demo connection for ${connection.name} was refused: ${saved.error.message}`)
    say(`First sync of ${connection.name}…`)
    const synced = await call(profiles.handlers, 'syncNow', {})
    if (!synced.ok || !synced.value.ok) throw new Error(`the first sync of ${connection.name} failed: ${JSON.stringify(synced)}`)
  }
  await profiles.switchTo(first)
}
