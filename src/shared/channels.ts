/**
 * Channel and event names of the IPC contract, kept apart from the schemas so the sandboxed preload
 * can bundle them without pulling in a validation library.
 */
export const methodNames = [
  'getAppInfo',
  'getSettings',
  'updateSettings',
  'getPictureStatus',
  'getConnection',
  'saveConnection',
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
  'listOrders',
  'getOrder',
  'getOrderTracking',
  'markOrderOpened',
  'listChangedOrders',
  'listOpenOrders',
  'createDraft',
  'getDraft',
  'getNewCustomerForm',
  'keepNewCustomerForm',
  'listDrafts',
  'updateDraft',
  'deleteDraft',
  'addDraftLines',
  'updateDraftLine',
  'removeDraftLine',
  'restoreDraftLine',
  'openDraftFor',
  'acceptDraftPrices',
  'sendDraft',
  'listOutbox',
  'getOutboxSummary',
  'retryOutbox',
  'editOutboxEntry',
  'discardOutboxEntry',
  'flushOutbox',
  'submitSentOrder',
  'changeSentOrder',
  'getSentOrderHeader',
  'applyMyChange',
  'dropMyChange',
  'chooseCustomerMatch',
  'addCustomer',
  'changeCustomer',
  'reorder',
  'saveDraftAsQuote',
  'listQuotes',
  'getQuote',
  'updateQuote',
  'duplicateQuote',
  'deleteQuote',
  'convertQuote',
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

/** Prefix of every invoke channel, so main can tell Satchel's channels from anything else. */
const channelPrefix = 'satchel:'
/** The single channel on which main pushes events to the window. */
export const eventChannel = 'satchel:event'

export function channelOf(method: MethodName): string {
  return channelPrefix + method
}
