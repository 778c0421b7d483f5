/** The CLI's --help: every command and option, as docs/cli.md (its contract) describes them. */
import { defaultDataDirectory } from '../paths'

export const usage = `Usage: npm run cli -- [options] <command>

Commands:
  sync [--full]                          Sync the local database with the ordering service
  status                                 Counts of local data, the outbox, and the last sync
  items search <query> --catalog <guid> [--customer <vendorGuid>] [--limit N]
                                         Search a catalog's items, priced for a customer
  items family <guid> [--customer <vendorGuid>]
                                         A family's entry grid (parent's or a member's guid),
                                         each member priced for the customer, with its stock
  customers search <query>               Search customers
  customers brief <guid> [--refresh]     A customer's brief from this laptop: sales by month
                                         (this year beside last), top and lapsed items, what is
                                         owed, new items, credit; --refresh reads their order
                                         history from the service first
  customers add --name N [--email E] [--phone P] [--file F]
                                         Queue a new customer (F: JSON with billTo/shipTo);
                                         its key is the customerLocalId its orders use
  customers change <guid> [--name N] [--email E] [--phone P] [--file F]
                                         Queue a change to a customer
  customers choose <key> <customer guid>, customers choose <key> --none
                                         A new customer the supplier may already have: which
                                         of the candidates \`outbox\` lists is this one, or none
  order queue --file <draft.json>        Check a draft order and queue it in the outbox
  flush                                  Send the outbox's waiting orders now
  outbox [--export <folder>]             List the outbox's orders and their states; --export
                                         saves each unsent order as a draft file order queue takes
  quotes [--customer <vendorGuid>]       List the quotes saved on this laptop
  orders list [--customer <vendorGuid>] [--changed] [--state <name or id>] [--limit N]
                                         Synced orders, newest first; --changed: those whose
                                         status changed since the rep last opened them
  orders show <number or guid>           An order as last fetched: lines with shipped,
                                         backordered and pending, timeline, related orders
  orders submit <number or guid> [--partial|--whole]
                                         Queue the submit of an order in review: --partial
                                         ships what is there and backorders the rest, --whole
                                         holds it all until everything is there, neither takes
                                         what is there (a user session only)
  orders change <number or guid> [--hold|--release] [--cancel] [--po T] [--note T]
                [--ship-after DATE] [--cancel-after DATE]
                                         Queue a change to a sent order (a user session only)
  orders apply-mine <key>, orders drop-mine <key>
                                         A change the supplier changed too: send yours over
                                         theirs, or drop yours
  images status                          The item pictures on this laptop: how many, their
                                         bytes against the budget, waiting, failed
  images fetch [--customer <vendorGuid>] [--limit N]
                                         Fetch item pictures now: a customer's usual items, or
                                         (without --customer) open orders first, then the catalog
  customer usual <customerGuid> [--limit N]
                                         What the customer usually orders, priced today
  support-bundle --out FILE [--logs DIR] Write the support bundle (a zip: versions, settings,
                                         counts, outbox states, sync reports, a week of logs;
                                         no credentials, customers' emails and phones masked)
  profiles list                          The profiles (one per supplier connection): supplier,
                                         database, unsent orders, needing attention, open quotes
  profiles add <name> --base-url URL --api-key K --api-secret S [--user-guid G]
                                         A profile with its own database; the API secret goes to
                                         the system keyring, shared with the app, and sync and
                                         flush use it when --api-secret is not given
  profiles remove <name> --yes           Deletes the profile's database and secrets; refused while
                                         it has unsent orders or open quotes

Options:
  --profile NAME      The profile to use (default: the only one, or the one used last)
  --data-dir DIR      The folder holding the profiles and their databases (env SATCHEL_DATA_DIR;
                      default: the desktop app's, ${defaultDataDirectory()})
  --db PATH           A database file itself, bypassing profiles (env SATCHEL_DB)
  --base-url URL      Ordering service address (env SATCHEL_BASE_URL)
  --api-key K         API key (env SATCHEL_API_KEY)
  --api-secret S      API secret (env SATCHEL_API_SECRET; default: the profile's, from the
                      system keyring)
  --api-secret-file F The API secret from the first line of file F (- for standard input), so
                      it does not show in the process list as an argument does
  --user-guid G       With the API key: attribute calls to this user; with --user-token: the
                      signed-in user (env SATCHEL_USER_GUID)
  --user-token T      Sign in as a user with this session token instead of an API key, with
                      --user-guid and --supplier-guid (env SATCHEL_USER_TOKEN; the supplier's
                      web app issues it at sign-in); an expired one pauses sending with
                      "Sign in again" until a new token is given
  --user-token-file F The session token from the first line of file F (- for standard input)
  --supplier-guid G   The supplier the user session belongs to (env SATCHEL_SUPPLIER_GUID)
  --allow-insecure-http
                      Allow a plain http:// address on another computer (a lab only: the
                      API secret travels unencrypted); kept for that address, warned every run
  --json              Print exactly one JSON object on stdout
  -h, --help          Show this help

Exit codes: 0 ok, 1 failure, 2 invalid input.
`
