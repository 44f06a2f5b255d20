package workspacedemo

import (
	"encoding/json"
	"fmt"
	"time"
)

// The seed data, described in doc.go. Every value is a constant or a
// formula of the row number: two workspaces hold the same data.

// seedTime is the logical clock's start: every seeded time is before it.
func seedTime() time.Time { return time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC) }

// col declares a column; typ decides its kind.
func col(name, typ string, nullable bool, def, comment string) column {
	k, ok := kindOf(typ)
	if !ok {
		panic("workspacedemo: seed type " + typ)
	}
	return column{name: name, typ: typ, kind: k, nullable: nullable, def: def, comment: comment}
}

// ts returns the seed time shifted by hours, formatted.
func ts(base time.Time, hours int) string { return stamp(base.Add(time.Duration(hours) * time.Hour)) }

func (w *Workspace) seed() {
	w.clock = seedTime()
	w.tables = map[string]*table{}
	modified := func(day int) time.Time { return time.Date(2025, 5, day, 18, 0, 0, 0, time.UTC) }
	add := func(t *table) { w.tables[t.name] = t }

	customers := &table{name: "sales.customers", owner: "ana", modifiedAt: modified(30),
		description: "Customers of the store: one row per company, with billing email, country and pricing tier.",
		columns: []column{
			col("id", "bigint", false, "", "Customer number."),
			col("name", "text", false, "", "Company name."),
			col("email", "text", true, "", "Billing contact email address."),
			col("country", "text", false, "", "ISO 3166 country code of the billing address."),
			col("tier", "text", false, "'standard'", "Pricing tier: standard, plus or enterprise."),
			col("created_at", "timestamptz", false, "now()", "When the customer signed up."),
		}, pk: []string{"id"}}
	for i, c := range [][4]string{
		{"Acme Corp", "billing@acme.example", "US", "enterprise"}, {"Globex", "accounts@globex.example", "DE", "plus"},
		{"Initech", "ap@initech.example", "US", "standard"}, {"Umbrella", "finance@umbrella.example", "GB", "enterprise"},
		{"Hooli", "billing@hooli.example", "US", "plus"}, {"Stark Industries", "ap@stark.example", "US", "enterprise"},
		{"Wayne Enterprises", "billing@wayne.example", "US", "plus"}, {"Wonka Foods", "compta@wonka.example", "FR", "standard"},
		{"Tyrell", "keiri@tyrell.example", "JP", "enterprise"}, {"Cyberdyne", "billing@cyberdyne.example", "US", "standard"},
		{"Soylent", "", "NL", "standard"}, {"Gringotts", "ledger@gringotts.example", "GB", "plus"},
	} {
		var email any = c[1]
		if c[1] == "" {
			email = nil
		}
		customers.rows = append(customers.rows, []any{int64(i + 1), c[0], email, c[2], c[3], ts(time.Date(2024, 1, 8, 10, 0, 0, 0, time.UTC), i*24*23)})
	}
	add(customers)

	orders := &table{name: "sales.orders", owner: "ana", modifiedAt: modified(31),
		description: "Orders placed by customers, one row per order, with their status (pending, shipped, delivered, late, cancelled) and total.",
		columns: []column{
			col("id", "bigint", false, "", "Order number."),
			col("customer_id", "bigint", false, "", "The customer who placed the order (sales.customers.id)."),
			col("status", "text", false, "'pending'", "pending, shipped, delivered, late (shipped past its promised date) or cancelled."),
			col("total", "numeric(10,2)", false, "0", "Order total in USD, taxes included."),
			col("created_at", "timestamptz", false, "now()", "When the order was placed."),
			col("shipped_at", "timestamptz", true, "", "When the order left the warehouse; null until then."),
		}, pk: []string{"id"}}
	start := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	for i := 1; i <= 60; i++ {
		status := orderStatus(i)
		created := start.Add(time.Duration(i-1) * 26 * time.Hour)
		var shipped any
		switch status {
		case "shipped", "delivered":
			shipped = stamp(created.Add(48 * time.Hour))
		case "late":
			shipped = stamp(created.Add(120 * time.Hour))
		}
		total := 25 + float64((i*37)%400) + float64(i%4)*0.25
		orders.rows = append(orders.rows, []any{int64(i), int64((i*7)%12 + 1), status, total, stamp(created), shipped})
	}
	add(orders)

	items := &table{name: "sales.order_items", owner: "ana", modifiedAt: modified(31),
		description: "Lines of each order: the product, its quantity and its unit price.",
		columns: []column{
			col("id", "bigint", false, "", "Line number."),
			col("order_id", "bigint", false, "", "The order (sales.orders.id)."),
			col("product_id", "bigint", false, "", "The product (inventory.products.id)."),
			col("quantity", "integer", false, "1", "Units ordered."),
			col("unit_price", "numeric(10,2)", false, "", "Price of one unit when ordered, in USD."),
		}, pk: []string{"id"}}

	products := &table{name: "inventory.products", owner: "sam", modifiedAt: modified(29),
		description: "Products in the catalog with category, list price, units in stock and the warehouse holding them.",
		columns: []column{
			col("id", "bigint", false, "", "Product number."),
			col("sku", "text", false, "", "Stock-keeping unit code."),
			col("name", "text", false, "", "Product name."),
			col("category", "text", false, "", "hardware, software, services or accessories."),
			col("price", "numeric(10,2)", false, "", "List price in USD."),
			col("stock", "integer", false, "0", "Units in stock."),
			col("warehouse_id", "bigint", false, "", "Warehouse holding the stock (inventory.warehouses.id)."),
			col("discontinued", "boolean", false, "false", "No longer sold."),
		}, pk: []string{"id"}}
	categories := []string{"hardware", "software", "services", "accessories"}
	for i, name := range []string{"Anvil", "Rocket skates", "Portable hole", "Laser pointer", "Desk lamp", "Office chair",
		"Standing desk", "Monitor arm", "USB hub", "Keyboard", "Mouse", "Webcam", "Headset", "Cable kit",
		"Support plan", "Install service", "Backup suite", "Antivirus", "Design app", "Travel case"} {
		n := i + 1
		price := round(9.99+float64((n*53)%300), 2)
		stock := int64((n * 17) % 60)
		products.rows = append(products.rows, []any{int64(n), fmt.Sprintf("SKU-%04d", n), name, categories[n%4], price, stock, int64(n%4 + 1), n%9 == 0})
	}
	add(products)
	for o := 1; o <= 60; o++ {
		for k := 0; k < 1+o%3; k++ {
			p := (o+k*5)%20 + 1
			items.rows = append(items.rows, []any{int64(len(items.rows) + 1), int64(o), int64(p), int64(1 + (o+k)%5), products.rows[p-1][4]})
		}
	}
	add(items)

	warehouses := &table{name: "inventory.warehouses", owner: "sam", modifiedAt: modified(12),
		description: "Warehouses with their city, country and capacity in units.",
		columns: []column{
			col("id", "bigint", false, "", "Warehouse number."),
			col("city", "text", false, "", "City of the warehouse."),
			col("country", "text", false, "", "ISO 3166 country code."),
			col("capacity", "integer", true, "", "Storage capacity in units."),
		}, pk: []string{"id"}}
	for i, wh := range [][3]any{{"Reno", "US", int64(50000)}, {"Rotterdam", "NL", int64(30000)}, {"Leipzig", "DE", int64(20000)}, {"Osaka", "JP", nil}} {
		warehouses.rows = append(warehouses.rows, []any{int64(i + 1), wh[0], wh[1], wh[2]})
	}
	add(warehouses)

	employees := &table{name: "hr.employees", owner: "hr-team", modifiedAt: modified(20),
		description: "Employees with their department, manager, hiring date and salary.",
		columns: []column{
			col("id", "bigint", false, "", "Employee number."),
			col("name", "text", false, "", "Full name."),
			col("email", "text", false, "", "Work email address."),
			col("department", "text", false, "", "sales, support, engineering or finance."),
			col("manager_id", "bigint", true, "", "The employee's manager (hr.employees.id); null for the CEO."),
			col("hired_on", "date", false, "", "First day of work."),
			col("salary", "numeric(10,2)", false, "", "Yearly salary in USD."),
		}, pk: []string{"id"}}
	for i, e := range [][3]string{{"Ana Lima", "sales", ""}, {"Sam Ortiz", "engineering", "1"}, {"Kim Park", "sales", "1"},
		{"Lee Chen", "support", "1"}, {"Maya Roy", "engineering", "2"}, {"Omar Haddad", "engineering", "2"},
		{"Eva Novak", "finance", "1"}, {"Ravi Iyer", "support", "4"}, {"Zoe Martin", "sales", "3"}, {"Tom Berg", "sales", "3"}} {
		var mgr any
		if e[2] != "" {
			mgr, _ = json.Number(e[2]).Int64()
		}
		n := i + 1
		employees.rows = append(employees.rows, []any{int64(n), e[0], fmt.Sprintf("employee%d@corp.example", n), e[1], mgr,
			time.Date(2019+n%6, time.Month(1+n%12), 1+n, 0, 0, 0, 0, time.UTC).Format(time.DateOnly), float64(52000 + n*4750)})
	}
	add(employees)

	w.seedIndexes()
	w.seedObjects()
}

// orderStatus is the status of seeded order i: by i mod 10, 3 and 7 are
// late, 0 cancelled, 1, 5 and 9 delivered, 2 and 6 shipped, 4 and 8
// pending (12 late, 6 cancelled, 18 delivered, 12 shipped, 12 pending).
func orderStatus(i int) string {
	switch i % 10 {
	case 3, 7:
		return "late"
	case 0:
		return "cancelled"
	case 1, 5, 9:
		return "delivered"
	case 2, 6:
		return "shipped"
	}
	return "pending"
}

// seedIndexes declares the indexes with their seeded scan counts, and the
// foreign keys.
func (w *Workspace) seedIndexes() {
	ix := func(table, name string, scans int64, unique bool, cols ...string) {
		t := w.tables[table]
		t.indexes = append(t.indexes, &index{name: name, columns: cols, unique: unique, scans: scans})
	}
	ix("sales.customers", "customers_pkey", 1200, true, "id")
	ix("sales.customers", "customers_email_key", 310, true, "email")
	ix("sales.orders", "orders_pkey", 5400, true, "id")
	ix("sales.orders", "orders_status_idx", 880, false, "status")
	ix("sales.orders", "orders_customer_idx", 2100, false, "customer_id")
	ix("sales.orders", "orders_customer_id_idx", 0, false, "customer_id")
	ix("sales.orders", "orders_created_at_idx", 95, false, "created_at")
	ix("sales.order_items", "order_items_pkey", 700, true, "id")
	ix("sales.order_items", "order_items_order_idx", 1500, false, "order_id")
	ix("inventory.products", "products_pkey", 990, true, "id")
	ix("inventory.products", "products_sku_key", 430, true, "sku")
	ix("inventory.products", "products_category_idx", 0, false, "category")
	ix("inventory.warehouses", "warehouses_pkey", 75, true, "id")
	ix("hr.employees", "employees_pkey", 60, true, "id")
	ix("hr.employees", "employees_department_idx", 12, false, "department")

	fk := func(name, table, column, refTable, refColumn string) {
		w.fks = append(w.fks, foreignKey{name: name, table: table, columns: []string{column}, refTable: refTable, refColumns: []string{refColumn}})
	}
	fk("orders_customer_fk", "sales.orders", "customer_id", "sales.customers", "id")
	fk("order_items_order_fk", "sales.order_items", "order_id", "sales.orders", "id")
	fk("order_items_product_fk", "sales.order_items", "product_id", "inventory.products", "id")
	fk("products_warehouse_fk", "inventory.products", "warehouse_id", "inventory.warehouses", "id")
	fk("employees_manager_fk", "hr.employees", "manager_id", "hr.employees", "id")
}

// seedObjects declares the saved views, charts, workbook and uploads.
func (w *Workspace) seedObjects() {
	used := func(day, hour int) time.Time { return time.Date(2025, 5, day, hour, 0, 0, 0, time.UTC) }
	w.views = []*savedView{
		{id: "sv-1", name: "Late orders", description: "Orders shipped past their promised date, newest first.", table: "sales.orders", owner: currentUser, shared: true,
			conds: []condition{{Column: "status", Operator: "eq", Value: "late"}}, sort: []sortKey{{Column: "created_at", Direction: "desc"}}, lastUsed: used(30, 16)},
		{id: "sv-2", name: "Enterprise customers", description: "Customers on the enterprise tier.", table: "sales.customers", owner: "ana", shared: true,
			conds: []condition{{Column: "tier", Operator: "eq", Value: "enterprise"}}, lastUsed: used(28, 10)},
		{id: "sv-3", name: "Low stock", description: "Products with fewer than 10 units in stock.", table: "inventory.products", owner: currentUser,
			conds: []condition{{Column: "stock", Operator: "lt", Value: json.Number("10")}}, sort: []sortKey{{Column: "stock", Direction: "asc"}}, lastUsed: used(31, 8)},
		{id: "sv-4", name: "Big orders", description: "Sam's private list of orders over 300 USD.", table: "sales.orders", owner: "sam",
			conds: []condition{{Column: "total", Operator: "gt", Value: json.Number("300")}}, lastUsed: used(29, 12)},
	}
	w.charts = []*chart{
		{id: "chart-1", title: "Orders by status", typ: "bar", source: "sales.orders", x: "status", aggregate: "count", workbook: "wb-1", changed: used(27, 9)},
		{id: "chart-2", title: "Revenue by customer", typ: "bar", source: "sales.orders", x: "customer_id", y: []string{"total"}, aggregate: "sum", workbook: "wb-1", changed: used(28, 9)},
		{id: "chart-3", title: "Stock by category", typ: "pie", source: "inventory.products", x: "category", y: []string{"stock"}, aggregate: "sum", changed: used(26, 9)},
	}
	w.workbooks = []*workbook{{id: "wb-1", title: "Weekly sales review", folder: "Sales", cells: []cell{
		{Kind: "markdown", Source: "# Weekly sales review\nOrders by status and revenue by customer."},
		{Kind: "sql", Source: "SELECT status, count(*) AS orders, sum(total) AS revenue FROM sales.orders GROUP BY status ORDER BY orders DESC"},
		{Kind: "chart", Source: "chart-1"},
	}}}
	w.uploads = map[string]upload{
		"upload-1": {name: "new_customers.csv", content: "id,name,email,country,tier\n13,Vandelay Industries,sales@vandelay.example,US,standard\n14,Oceanic Airlines,ap@oceanic.example,AU,plus\n15,Blue Sun,billing@bluesun.example,CN,enterprise\n"},
		"upload-2": {name: "returns.csv", content: "id,order_id,reason,returned_on\n1,5,damaged,2025-03-12\n2,11,wrong item,2025-03-20\n3,23,late delivery,2025-04-05\n4,41,changed mind,2025-05-02\n"},
		"upload-3": {name: "warehouses_eu.csv", content: "5;Lyon;FR;12000\n6;Porto;PT;8000\n"},
	}
	w.seq = map[string]int{"sv": 4, "chart": 3, "wb": 1}
}
