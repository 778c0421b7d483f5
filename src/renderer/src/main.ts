import { createPinia } from 'pinia'
import { createApp } from 'vue'
import App from './App.vue'
import { router } from './router'
import { profileResetPlugin } from './stores/profile-reset'
import './styles.css'

createApp(App).use(createPinia().use(profileResetPlugin)).use(router).mount('#app')
