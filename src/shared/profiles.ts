import { z } from 'zod'

/** One supplier connection on this laptop, as the switcher shows it. */
const profileSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The service's origin, or null before a connection is saved. */
  supplier: z.string().nullable(),
  /** The supplier's name as its service gives it, once an order has been synced; absent before. */
  supplierName: z.string().optional(),
  /** Orders in the outbox not yet accepted by the service (needing attention included). */
  unsent: z.number().int(),
  needsAttention: z.number().int(),
  /** The profile whose data the window shows. */
  onScreen: z.boolean(),
})
export type ProfileSummary = z.infer<typeof profileSummarySchema>

export const profileListSchema = z.object({ profiles: z.array(profileSummarySchema) })
export type ProfileList = z.infer<typeof profileListSchema>

const profileId = z.object({ id: z.string().min(1).max(40) }).strict()

export const profilesContract = {
  listProfiles: { input: z.undefined(), output: profileListSchema },
  /** Puts another profile on screen: every screen then reads that profile's database. */
  switchProfile: { input: profileId, output: profileListSchema },
  /** A new profile with its own database; its connection is set up in Settings once it is on screen. */
  addProfile: { input: z.object({ name: z.string().trim().min(1).max(60) }).strict(), output: profileListSchema },
  /** Deletes a profile's database and secrets; refused (CONFLICT, saying how many) while it has unsent orders or open quotes. */
  removeProfile: { input: profileId, output: profileListSchema },
} as const
