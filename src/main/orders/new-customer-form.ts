import { ordersContract, type NewCustomerForm } from '../../shared/orders'
import type { Database } from '../db/database'
import { SettingsTable } from '../db/settings'

const key = 'newCustomerFormInProgress'
const formSchema = ordersContract.getNewCustomerForm.output

/**
 * The new-customer form as it is being typed, kept in SQLite like a draft so a reload or a crash
 * loses none of it. It is not a draft yet: a draft needs a valid customer, and a half-typed one is not.
 */
export class NewCustomerFormKeeper {
  private readonly settings: SettingsTable

  constructor(db: Database) {
    this.settings = new SettingsTable(db)
  }

  get(): NewCustomerForm | null {
    // A form kept by an older version that no longer fits is dropped rather than shown half right.
    const parsed = formSchema.safeParse(this.settings.get(key) ?? null)
    return parsed.success ? parsed.data : null
  }

  keep(form: NewCustomerForm | null): void {
    if (form === null) this.settings.delete(key)
    else this.settings.set(key, form)
  }
}
