import { createRouter, createWebHashHistory } from 'vue-router'
import SettingsView from './views/SettingsView.vue'

// Hash history: the packaged app loads index.html from a file:// URL, where path routing cannot work.
export const router = createRouter({
  history: createWebHashHistory(),
  routes: [
    { path: '/', redirect: '/settings' },
    { path: '/settings', name: 'settings', component: SettingsView, meta: { title: 'Settings' } },
  ],
})
