// Package workspacedemo is an in-memory data workspace that implements
// every tool of the records example's workspace toolset — the declaration
// internal/catalogs embeds (catalogs.WorkspaceToolset(), generated from
// examples/records/design) — so that `quiver serve` can publish the
// toolset through a provider in its own process and a newcomer's MCP
// client calls real tools at once. It is a demo: application code must
// not import it.
//
// It owns the workspace's state and the tools' behaviour: Workspace holds
// tables with rows, indexes and foreign keys, the view open in the grid,
// saved views, charts, workbooks, workbench tabs, exports, uploaded files
// and staged edits, behind one lock (safe for concurrent use).
// Workspace.Execute is a toolcall.Executor (in process, over MCP, through
// registry.Serve): it validates the payload
// against the tool's declared input schema, runs the tool and returns its
// result, which matches the declared output schema, or an error whose
// message tells the calling model what to fix. Confirmation-gated tools
// run when called: gating is the caller's job. Each area lives in the
// file of the design that declares it (tables.go, query.go, views.go,
// exports.go, workbench.go, staging.go).
//
// # Seed data
//
// New returns the same data every time; times run on a logical clock that
// starts at 2025-06-02T09:00:00Z and advances one second per change.
//
//   - sales.customers: 12 companies (ids 1–12; one without an email).
//   - sales.orders: 60 orders, ids 1–60, placed every 26 hours from
//     2025-03-01. Order i has status late when i mod 10 is 3 or 7 (12
//     orders, 10 of them with total > 100), cancelled when 0 (6),
//     delivered when 1, 5 or 9 (18), shipped when 2 or 6 (12), pending
//     otherwise (12); total = 25 + (37·i mod 400) + 0.25·(i mod 4);
//     customer_id = 7·i mod 12 + 1.
//   - sales.order_items: 120 lines (1 + i mod 3 per order i).
//   - inventory.products: 20 products; 3 with stock < 10 (ids 4, 11, 18).
//   - inventory.warehouses: 4 warehouses. hr.employees: 10 employees.
//   - Indexes with seeded scan counts, among them an unused duplicate
//     (orders_customer_id_idx of orders_customer_idx) and an unused
//     products_category_idx; five foreign keys between the tables.
//   - Saved views sv-1 "Late orders" and sv-3 "Low stock" (the user's,
//     "demo"), sv-2 "Enterprise customers" (ana's, shared) and sv-4 (sam's,
//     private: invisible). Charts chart-1 to chart-3, workbook wb-1
//     "Weekly sales review". Uploaded CSV files upload-1
//     (new_customers.csv, for sales.customers), upload-2 (returns.csv,
//     for a new table) and upload-3 (warehouses_eu.csv, ";"-delimited,
//     no header, for inventory.warehouses).
//
// # Filters and SQL
//
// Filters (previewRows, countRows, and WHERE) are conditions joined by
// AND: column = 'text', column > 100, column IN ('a', 'b'), NOT IN, LIKE
// and NOT LIKE ('%' any text, '_' one character), IS NULL, IS NOT NULL;
// operators = != <> < <= > >=. Text and times are single-quoted, numbers
// bare, booleans true or false; a value must fit its column's type. OR,
// NOT before a condition and parentheses are refused with a message
// saying what to write instead. applyFilter's structured conditions
// (eq, ne, lt, lte, gt, gte, contains, startsWith, in, isNull,
// isNotNull) become the same predicates; contains and startsWith ignore
// case.
//
// runQuery, explainQuery, startExport's sql, chart sources and workbook
// SQL cells take one-table SELECTs: SELECT * or columns and count(*),
// count, sum, avg, min, max (with AS names) FROM a table, optional WHERE
// (the filter syntax), GROUP BY one column, ORDER BY names with ASC or
// DESC, LIMIT. Writes are refused, pointing at the staging tools; joins,
// subqueries and WITH are refused, pointing at listRelations.
//
// # Bounds
//
// The bounded tools (listTables, previewRows, runQuery, findColumns)
// write the canonical bounds fields in their result: returned, truncated,
// total and, when truncated, refinement_hint. The records design declares
// no Cursor for them, and their payload schemas are closed, so there is
// no next_cursor: previewRows pages by key instead, its hint giving the
// filter of the next page (e.g. "id > 20").
//
// # What is simulated
//
// Exports write no file: each status read advances an export from queued
// to running to done, and the download link names the file it would be.
// Index scan counts grow when a read's plan uses the index. sample,
// timeoutSeconds and proposals change nothing; importFile reads the
// seeded uploads only.
package workspacedemo
