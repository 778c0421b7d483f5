/**
 * What a service address may not carry, said the same by the window and the CLI. Its own small file,
 * without zod, because the CLI reads it before loading anything else.
 */

/** Why a service address must not be saved: it carries a user name or password, which would be kept and shown with it. */
export function credentialsInAddressProblem(baseUrl: string): string | null {
  if (!URL.canParse(baseUrl)) return null
  const url = new URL(baseUrl)
  if (url.username === '' && url.password === '') return null
  return 'Leave the user name and password out of the service address: enter the API key and secret (or sign in) as such. An address is kept and shown as it is, so credentials in it would be too.'
}
