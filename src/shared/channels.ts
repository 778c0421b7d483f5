/**
 * Channel and event names of the IPC contract, kept apart from the schemas so the sandboxed preload
 * can bundle them without pulling in a validation library.
 */
/** The methods that only read (or act outside the database: printing, the window, updates). */
const readingMethodNames = [
  'getAppInfo',
  'getSettings',
  'getPictureStatus',
  'getConnection',
  'testConnection',
  'syncNow',
  'cancelSync',
  'getSyncStatus',
  'getCatalogUpdate',
  'listCatalogs',
  'listCategories',
  'searchCatalogItems',
  'countCatalogItems',
  'getCatalogItem',
  'getItemFamily',
  'searchCustomers',
  'getCustomer',
  // Its answer never waits on a write: the visit it notes is written after, behind the writer's long requests.
  'getCustomerBrief',
  'listOrders',
  'getOrder',
  'getOrderTracking',
  'listChangedOrders',
  'listOpenOrders',
  'getDraft',
  'getNewCustomerForm',
  'listDrafts',
  'listOutbox',
  'getOutboxSummary',
  'getSentOrderHeader',
  'listQuotes',
  'getQuote',
  'getUsualItems',
  'getDocument',
  'printDocument',
  'saveDocumentPdf',
  'getConnectivity',
  'checkConnectivity',
  'setWindowVisible',
  'getUpdateState',
  'checkForUpdates',
  'restartToUpdate',
  'openLogsFolder',
  'exportSupportBundle',
  'listProfiles',
  'switchProfile',
  'addProfile',
  'removeProfile',
  'getItemPictures',
  'setPicturesOnScreen',
] as const

/**
 * The methods that write the database from the window's connection: the rep's drafts, outbox
 * entries, quotes and settings. The handler table (src/main/core/handlers.ts) first waits out the
 * sync writer's long requests in flight before each.
 */
export const writingMethodNames = [
  'updateSettings',
  'saveConnection',
  'markOrderOpened',
  'createDraft',
  'keepNewCustomerForm',
  'updateDraft',
  'deleteDraft',
  'addDraftLines',
  'updateDraftLine',
  'removeDraftLine',
  'restoreDraftLine',
  'openDraftFor',
  'acceptDraftPrices',
  'sendDraft',
  'retryOutbox',
  'editOutboxEntry',
  'discardOutboxEntry',
  'flushOutbox',
  'submitSentOrder',
  'changeSentOrder',
  'applyMyChange',
  'dropMyChange',
  'chooseCustomerMatch',
  'addCustomer',
  'changeCustomer',
  // Outside a sync run the history's pages are written on the window's connection.
  'refreshCustomerHistory',
  'reorder',
  'saveDraftAsQuote',
  'updateQuote',
  'duplicateQuote',
  'deleteQuote',
  'convertQuote',
] as const

export const methodNames = [...readingMethodNames, ...writingMethodNames] as const

export type MethodName = (typeof methodNames)[number]

export type EventName =
  | 'settingsChanged'
  | 'connectionChanged'
  | 'syncStatusChanged'
  | 'syncProgress'
  | 'syncFinished'
  | 'catalogUpdateChanged'
  | 'outboxChanged'
  | 'connectivityChanged'
  | 'updateStateChanged'
  | 'profilesChanged'
  | 'picturesFetched'
  | 'customerHistoryChanged'

/** Prefix of every invoke channel, so main can tell Satchel's channels from anything else. */
const channelPrefix = 'satchel:'
/** The single channel on which main pushes events to the window. */
export const eventChannel = 'satchel:event'

export function channelOf(method: MethodName): string {
  return channelPrefix + method
}
