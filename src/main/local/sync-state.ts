/**
 * Sync's bookkeeping in the local copy: per scope, the cursor, the unfinished run and the pages it
 * has applied, plus listing ids and the history of runs. The rows themselves are LocalCopy's
 * (copy.ts), which records a page as done in the same transaction as the page's rows.
 */
import type { Database, Statement } from 'better-sqlite3'
import type { SyncReport } from '../../shared/synced'

export type SyncMode = 'full' | 'delta'

/** An unfinished run, persisted so the next run resumes it instead of starting over. */
export interface RunState {
  mode: SyncMode
  /** serverTimestamp of the run's first page: the cursor committed when the run completes. */
  cursor: string | null
  /** lastUpdatedAt the run's pages are fetched with (null for a full listing). */
  since: string | null
  listingId: number | null
  /** Rows the first page announced, when the service counts them. */
  total: number | null
  /** A first listing of the scope: its pages are inserted as new rows (ApplyContext.fresh). */
  fresh?: boolean
  /** Rows per page the run asks for: with the pages done, how far a first listing has got. */
  pageSize?: number
}

export interface ScopeState {
  scope: string
  cursor: string | null
  run: RunState | null
  verifyNeeded: boolean
  lastSuccessAt: number | null
  lastServerTime: string | null
  lastError: string | null
}

interface ScopeRow {
  scope: string
  cursor: string | null
  run: string | null
  verify_needed: number
  last_success_at: number | null
  last_server_time: string | null
  last_error: string | null
}

export class SyncState {
  private readonly selectScope: Statement<[string], ScopeRow>
  private readonly selectScopeNames: Statement<[], string>
  private readonly ensureScope: Statement<[string]>
  private readonly updateRun: Statement<[string | null, string]>
  private readonly insertPage: Statement<[string, number]>
  private readonly selectPages: Statement<[string], number>
  private readonly clearPages: Statement<[string]>
  private readonly commitScope: Statement<[string | null, number, string | null, string]>
  private readonly setVerify: Statement<[number, string]>
  private readonly setError: Statement<[string, string | null]>
  private readonly insertListing: Statement<[string]>
  private readonly deleteScope: Statement<[string]>
  private readonly insertRun: Statement<[number, number, number, number, string]>
  private readonly trimRuns: Statement<[]>
  private readonly dropCursor: Statement<[string]>
  private readonly lastOkRun: Statement<[], number | null>
  private readonly lastRun: Statement<[], string>
  private readonly recentRuns: Statement<[number], { started_at: number; finished_at: number; report: string }>
  private readonly catalogItemsScope: Statement<
    [string],
    { last_success_at: number | null; run: string | null; pages: number }
  >

  constructor(protected readonly db: Database) {
    this.selectScope = db.prepare('SELECT * FROM sync_scopes WHERE scope = ?')
    this.selectScopeNames = db.prepare<[], string>('SELECT scope FROM sync_scopes ORDER BY scope').pluck()
    this.ensureScope = db.prepare('INSERT INTO sync_scopes (scope) VALUES (?) ON CONFLICT (scope) DO NOTHING')
    this.updateRun = db.prepare('UPDATE sync_scopes SET run = ? WHERE scope = ?')
    this.insertPage = db.prepare('INSERT OR IGNORE INTO sync_pages (scope, page) VALUES (?, ?)')
    this.selectPages = db.prepare<[string], number>('SELECT page FROM sync_pages WHERE scope = ?').pluck()
    this.clearPages = db.prepare('DELETE FROM sync_pages WHERE scope = ?')
    this.commitScope = db.prepare(
      'UPDATE sync_scopes SET cursor = ?, run = NULL, verify_needed = 0, last_success_at = ?, last_server_time = ?, last_error = NULL WHERE scope = ?',
    )
    this.setVerify = db.prepare('UPDATE sync_scopes SET verify_needed = ? WHERE scope = ?')
    this.setError = db.prepare(
      'INSERT INTO sync_scopes (scope, last_error) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET last_error = excluded.last_error',
    )
    this.insertListing = db.prepare('INSERT INTO sync_listings (scope) VALUES (?)')
    this.deleteScope = db.prepare('DELETE FROM sync_scopes WHERE scope = ?')
    this.insertRun = db.prepare(
      'INSERT INTO sync_runs (started_at, finished_at, ok, full, report) VALUES (?, ?, ?, ?, ?)',
    )
    this.trimRuns = db.prepare('DELETE FROM sync_runs WHERE id <= (SELECT max(id) - 100 FROM sync_runs)')
    this.dropCursor = db.prepare('UPDATE sync_scopes SET cursor = NULL WHERE scope = ?')
    this.lastOkRun = db.prepare<[], number | null>('SELECT max(finished_at) FROM sync_runs WHERE ok = 1').pluck()
    this.lastRun = db.prepare<[], string>('SELECT report FROM sync_runs ORDER BY id DESC LIMIT 1').pluck()
    this.recentRuns = db.prepare('SELECT started_at, finished_at, report FROM sync_runs ORDER BY id DESC LIMIT ?')
    this.catalogItemsScope = db.prepare(
      'SELECT last_success_at, run, (SELECT count(*) FROM sync_pages p WHERE p.scope = s.scope) AS pages FROM sync_scopes s WHERE scope = ?',
    )
  }

  /**
   * A scope's state; one never synced has none yet. Reads only: the engine plans a scope while the
   * writer thread commits the pages of the one before, and a write here would wait for that commit
   * with the event loop blocked (35-80 ms a scope in a delta). Its row is made when a run begins,
   * completes or fails.
   */
  scope(scope: string): ScopeState {
    const row = this.selectScope.get(scope)
    if (!row)
      return {
        scope,
        cursor: null,
        run: null,
        verifyNeeded: false,
        lastSuccessAt: null,
        lastServerTime: null,
        lastError: null,
      }
    return {
      scope,
      cursor: row.cursor,
      run: row.run ? (JSON.parse(row.run) as RunState) : null,
      verifyNeeded: row.verify_needed === 1,
      lastSuccessAt: row.last_success_at,
      lastServerTime: row.last_server_time,
      lastError: row.last_error,
    }
  }

  /**
   * Where a catalog's items stand, for the screens: when they last finished syncing (local ms), the
   * run in progress and how many of its pages are in. Null before the catalog's first run began.
   */
  catalogItems(catalogGuid: string): { lastSuccessAt: number | null; run: RunState | null; pagesDone: number } | null {
    return this.pagedScope(`catalogItems:${catalogGuid}`)
  }

  /** The same for any paged scope ('customers', 'orders', 'catalogItems:<guid>'). */
  pagedScope(scope: string): { lastSuccessAt: number | null; run: RunState | null; pagesDone: number } | null {
    const row = this.catalogItemsScope.get(scope)
    return row
      ? {
          lastSuccessAt: row.last_success_at,
          run: row.run ? (JSON.parse(row.run) as RunState) : null,
          pagesDone: row.pages,
        }
      : null
  }

  allScopes(): ScopeState[] {
    return this.selectScopeNames.all().map((name) => this.scope(name))
  }

  newListingId(scope: string): number {
    return Number(this.insertListing.run(scope).lastInsertRowid)
  }

  beginRun(scope: string, run: RunState): void {
    this.db
      .transaction(() => {
        this.ensureScope.run(scope)
        this.clearPages.run(scope)
        this.updateRun.run(JSON.stringify(run), scope)
      })
      .immediate()
  }

  updateRunState(scope: string, run: RunState): void {
    this.updateRun.run(JSON.stringify(run), scope)
  }

  pagesDone(scope: string): Set<number> {
    return new Set(this.selectPages.all(scope))
  }

  /** A page of the unfinished run is applied; called inside the transaction that wrote its rows. */
  recordPageDone(scope: string, page: number): void {
    this.insertPage.run(scope, page)
  }

  /** The run finished: its first page's serverTimestamp becomes the cursor, and the next run is a delta. */
  completeRun(scope: string, cursor: string | null, localNow: number): void {
    this.db
      .transaction(() => {
        // The catalogs are read whole, with no run begun: their row starts here.
        this.ensureScope.run(scope)
        this.commitScope.run(cursor, localNow, cursor, scope)
        this.clearPages.run(scope)
      })
      .immediate()
  }

  /** Forget the unfinished run (and, for a refused cursor, the cursor): the next pass starts from page 0. */
  abandonRun(scope: string, options: { dropCursor: boolean }): void {
    this.db
      .transaction(() => {
        this.clearPages.run(scope)
        this.updateRun.run(null, scope)
        if (options.dropCursor) this.dropCursor.run(scope)
      })
      .immediate()
  }

  setVerifyNeeded(scope: string, needed: boolean): void {
    this.setVerify.run(needed ? 1 : 0, scope)
  }

  /** Why the scope's last run failed; kept for a scope that has never run a listing (the catalogs) too. */
  setLastError(scope: string, message: string | null): void {
    this.setError.run(scope, message)
  }

  forgetScope(scope: string): void {
    this.db
      .transaction(() => {
        this.clearPages.run(scope)
        this.deleteScope.run(scope)
      })
      .immediate()
  }

  /** Local clock, ms: the end of the last run that finished without error. */
  lastSyncAt(): number | null {
    return this.lastOkRun.get() ?? null
  }

  lastReport(): SyncReport | null {
    const json = this.lastRun.get()
    return json ? (JSON.parse(json) as SyncReport) : null
  }

  /** The last `limit` runs' reports, newest first, with when each ran (ISO). */
  recentReports(limit: number): { startedAt: string; finishedAt: string; report: SyncReport }[] {
    return this.recentRuns.all(limit).map((row) => ({
      startedAt: new Date(row.started_at).toISOString(),
      finishedAt: new Date(row.finished_at).toISOString(),
      report: JSON.parse(row.report) as SyncReport,
    }))
  }

  recordRun(startedAt: number, finishedAt: number, ok: boolean, full: boolean, report: SyncReport): void {
    this.insertRun.run(startedAt, finishedAt, ok ? 1 : 0, full ? 1 : 0, JSON.stringify(report))
    this.trimRuns.run()
  }
}
