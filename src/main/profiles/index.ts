/**
 * The profiles' public entry, for code outside src/ (scripts/demo.ts): the profile manager, and the
 * demo's profiles connected to their services.
 */
export { createProfileManager } from './manager'
export { connectDemoProfiles, type DemoConnection } from './demo'
