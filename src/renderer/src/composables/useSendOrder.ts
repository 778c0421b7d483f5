import { computed, ref, type Ref } from 'vue'
import type { DraftCheck, DraftLine } from '../../../shared/orders'
import { ApiError } from '../errors'
import { useDraftsStore } from '../stores/drafts'

/** Why the last Send was refused: prices changed (conflict), problems to fix, no lines, or anything else. */
export interface SendProblem {
  kind: 'conflict' | 'invalid' | 'empty' | 'other'
  message: string
}

interface SendOrderOptions {
  /** The draft on screen. */
  id: () => number
  /** Its last check by the core, null while it loads or once it is sent. */
  check: Readonly<Ref<DraftCheck | null>>
  /** The screen's queue of changes: the send runs in it, so it never overtakes an edit. */
  serial: <T>(work: () => Promise<T>) => Promise<T | null>
  /** Lets the field being typed in hand over its text before the order is frozen. */
  handOverTyping: () => void
}

/**
 * Sending the draft on screen: Send (asking first when the order takes the customer past their
 * credit limit), the refusal the rep has to act on, and the outbox entry and lines once it is sent.
 */
export function useSendOrder(options: SendOrderOptions) {
  const drafts = useDraftsStore()
  const { check, serial } = options

  /** The outbox entry the draft became, once Send went through. */
  const sentEntry = computed(() => {
    const apiGuid = drafts.sentFromDraft[options.id()]
    return apiGuid ? (drafts.sent[apiGuid] ?? null) : null
  })
  /** The lines as they were sent, for the sent panel. */
  const sentLines = ref<DraftLine[]>([])
  const sendProblem = ref<SendProblem | null>(null)
  /** Asked on Send when the order takes the customer past their credit limit: the supplier decides. */
  const confirmingCredit = ref(false)

  /**
   * A refused Send for problems says how many are left as the rep fixes them, from the current check
   * rather than the words of the refusal; it goes once none is left.
   */
  const showSendProblem = computed(() => {
    const problem = sendProblem.value
    if (problem === null) return false
    if (problem.kind === 'invalid') return (check.value?.issues.filter((i) => i.severity === 'error').length ?? 0) > 0
    // "Add at least one line" is said only once Send was pressed, and goes with the first line.
    if (problem.kind === 'empty') return (check.value?.draft.lines.length ?? 0) === 0
    return true
  })

  function send(): Promise<void> {
    if (check.value?.account?.overLimit && !sentEntry.value) {
      confirmingCredit.value = true
      return Promise.resolve()
    }
    return sendNow()
  }

  function sendOverLimit(): void {
    confirmingCredit.value = false
    void sendNow()
  }

  async function sendNow(): Promise<void> {
    if (!check.value || sentEntry.value) return
    // Let the fields and line notes hand over what is being typed (they save on leaving the field)
    // before the order is frozen.
    options.handOverTyping()
    await new Promise((resolve) => setTimeout(resolve, 0))
    const snapshot = check.value.draft.lines
    await serial(async () => {
      try {
        await drafts.send(options.id())
        sentLines.value = snapshot
        sendProblem.value = null
      } catch (caught) {
        if (!(caught instanceof ApiError)) throw caught
        const { code, message } = caught.error
        const empty = code === 'INVALID_ARGUMENT' && check.value?.draft.lines.length === 0
        sendProblem.value = {
          kind: code === 'CONFLICT' ? 'conflict' : empty ? 'empty' : code === 'INVALID_ARGUMENT' ? 'invalid' : 'other',
          message,
        }
        // The send problem above is what the rep needs; a failed reload keeps the last check on screen.
        await drafts.load(options.id()).catch(() => undefined)
      }
    })
  }

  return { sentEntry, sentLines, sendProblem, showSendProblem, confirmingCredit, send, sendOverLimit }
}
