import { createRouter, createWebHashHistory } from 'vue-router'
import { useConnectionStore } from './stores/connection'
import { useCustomersStore } from './stores/customers'
import { whenIdle } from './composables/whenIdle'

/**
 * The order screen: where Ctrl+N and every New order land. Fetched on first use, its code and the
 * pieces it imports came in a waterfall of 13 files that kept the rep's first Ctrl+N from the SKU box
 * for 260 ms at bench size (docs/perf/2026-12-02-order-keys.md); so it is fetched in the first quiet
 * moment after the window's first screen instead.
 */
const orderEntry = () => import('./views/OrderEntryView.vue')

// Hash history: the packaged app loads index.html from a file:// URL, where path routing cannot work.
// Views load on first visit, so the window opens without parsing screens the rep has not asked for.
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', redirect: '/customers' },
    {
      path: '/connect',
      name: 'connect',
      component: () => import('./views/ConnectView.vue'),
      meta: { title: 'Connect' },
    },
    {
      // A profile switch passes here, so no screen of either profile shows on the way.
      path: '/switching',
      name: 'switching',
      component: () => import('./views/SwitchingView.vue'),
      meta: { title: 'Switching profiles' },
    },
    {
      path: '/customers',
      name: 'customers',
      component: () => import('./views/CustomersView.vue'),
      meta: { title: 'Customers' },
    },
    {
      path: '/customers/new',
      name: 'new-customer',
      component: () => import('./views/NewCustomerView.vue'),
      meta: { title: 'New customer' },
    },
    {
      path: '/customers/:guid',
      name: 'customer',
      component: () => import('./views/CustomerView.vue'),
      props: true,
      meta: { title: 'Customer' },
    },
    {
      path: '/customers/:guid/brief',
      name: 'customer-brief',
      component: () => import('./views/BriefDocumentView.vue'),
      props: true,
      meta: { title: 'Customer brief' },
    },
    {
      path: '/catalog',
      name: 'catalog',
      component: () => import('./views/CatalogView.vue'),
      meta: { title: 'Catalog' },
      // Opened plainly (the sidebar, Alt+2), the catalog is for the customer the rep is working for; a
      // link that names a catalog without a customer means the catalog's own prices.
      beforeEnter: (to) => {
        const current = useCustomersStore().currentGuid
        if (current && !to.query.customer && !to.query.catalog && !to.query.draft)
          return { ...to, query: { ...to.query, customer: current } }
        return true
      },
    },
    { path: '/drafts', name: 'drafts', component: () => import('./views/DraftsView.vue'), meta: { title: 'Drafts' } },
    {
      path: '/drafts/:id',
      name: 'draft',
      component: orderEntry,
      props: (route) => ({ id: Number(route.params.id) }),
      meta: { title: 'Order' },
    },
    { path: '/orders', name: 'orders', component: () => import('./views/OrdersView.vue'), meta: { title: 'Orders' } },
    {
      path: '/orders/:guid',
      name: 'order',
      component: () => import('./views/OrderView.vue'),
      props: true,
      meta: { title: 'Order' },
    },
    { path: '/quotes', name: 'quotes', component: () => import('./views/QuotesView.vue'), meta: { title: 'Quotes' } },
    {
      path: '/quotes/:id',
      name: 'quote',
      component: () => import('./views/QuoteView.vue'),
      props: (route) => ({ id: Number(route.params.id) }),
      meta: { title: 'Quote' },
    },
    {
      path: '/documents/:kind(quote|draft|queued|order)/:reference',
      name: 'document',
      component: () => import('./views/DocumentView.vue'),
      props: true,
      meta: { title: 'Document' },
    },
    { path: '/outbox', name: 'outbox', component: () => import('./views/OutboxView.vue'), meta: { title: 'Outbox' } },
    {
      path: '/settings',
      name: 'settings',
      component: () => import('./views/SettingsView.vue'),
      meta: { title: 'Settings' },
    },
  ],
})

/** Screens that make sense before a connection exists: the first-run screen, Settings (version, logs), a switch's wait. */
const withoutConnection = new Set(['connect', 'settings', 'switching'])

// First run: until a connection is saved, every screen that needs synced data sends the rep to /connect.
router.beforeEach(async (to) => {
  if (typeof to.name === 'string' && withoutConnection.has(to.name)) return true
  try {
    const connection = await useConnectionStore().ensureLoaded()
    if (connection === null) return { name: 'connect' }
  } catch {
    // The core did not answer: show the screen, which will say what failed.
  }
  return true
})

router.afterEach((to) => {
  const title = typeof to.meta.title === 'string' ? to.meta.title : null
  document.title = title ? `${title} — Satchel` : 'Satchel'
})

void router.isReady().then(() => whenIdle(() => void orderEntry().catch(() => undefined)))
