/**
 * A real system keyring for CLI tests: GNOME Keyring's Secret Service on a private session bus, with
 * a fresh login keyring unlocked. Where dbus-daemon or gnome-keyring-daemon is missing, `skipReason`
 * says so and a test skips (.ci/run installs both).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openOsKeyring } from '../../src/main/profiles/os-keyring'

const missing = ['dbus-daemon', 'gnome-keyring-daemon'].filter(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
)
export const keyringSkipReason =
  missing.length > 0 ? `no real keyring here: ${missing.join(' and ')} not installed` : null

export interface TestKeyring {
  /** The private bus's address, for DBUS_SESSION_BUS_ADDRESS. */
  address: string
  stop(): void
}

/**
 * A session bus of the test's own, and GNOME Keyring on it with a fresh login keyring unlocked. The
 * bus starts no service on request: with the system's session config, a request that came before
 * the test's daemon had taken the Secret Service name made the bus start another one, with the real
 * HOME and no unlocked keyring, which then kept the name and took no write (a CI run failed so; a
 * daemon started 1.5 s late fails the same way every time).
 */
async function startBusAndDaemon(home: string): Promise<{ address: string; bus: ChildProcess; daemon: ChildProcess }> {
  const config = join(home, 'session-bus.conf')
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=${tmpdir()}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  )
  const bus = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const address = await new Promise<string>((resolve, reject) => {
    bus.once('error', reject)
    bus.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().split('\n')[0]!.trim()))
  })
  const daemon = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, HOME: home, XDG_DATA_HOME: join(home, 'share') },
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  daemon.stdin!.end('satchel-test-login')
  return { address, bus, daemon }
}

/** Whether the keyring stores and gives back a value (then forgets it). */
async function keyringTakesWrites(dataDir: string): Promise<boolean> {
  const keyring = await openOsKeyring({ dataDir, timeoutMs: 1000 })
  if (!keyring.isAvailable()) return false
  try {
    await keyring.set('apiSecret', 'ready-check')
    const back = await keyring.get('apiSecret')
    await keyring.delete('apiSecret')
    return back === 'ready-check'
  } catch {
    return false
  }
}

/**
 * Starts the keyring with `home` as its HOME and points this process's binding at its bus (to look
 * at the keyring as the app would); stop() ends both daemons and gives the variable back.
 */
export async function startTestKeyring(home: string, dataDir: string): Promise<TestKeyring> {
  const saved = process.env.DBUS_SESSION_BUS_ADDRESS
  const { address, bus, daemon } = await startBusAndDaemon(home)
  const stop = () => {
    daemon.kill()
    bus.kill()
    if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS
    else process.env.DBUS_SESSION_BUS_ADDRESS = saved
  }
  process.env.DBUS_SESSION_BUS_ADDRESS = address
  // Ready means an item can be written: the daemon answers a read before its login keyring exists
  // (a CI run's `profiles add` then met "Secret Service: no result found").
  const deadline = Date.now() + 20_000
  while (!(await keyringTakesWrites(dataDir))) {
    if (Date.now() > deadline) {
      stop()
      throw new Error('GNOME Keyring did not take a write on the test’s session bus within 20 s')
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { address, stop }
}
