package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

// queryTools declares the SQL query and schema introspection tools.
func queryTools() {
	Tool("runQuery", "Run a read-only SQL SELECT against the workspace database and return up to maxRows rows. Statements that write (INSERT, UPDATE, DELETE, DDL) are rejected: stage edits instead.", func() {
		Title("Run SQL query")
		Args(func() {
			Attribute("sql", String, "The SELECT statement to run.")
			Attribute("maxRows", Int, "Maximum rows to return.", func() {
				Minimum(1)
				Maximum(5000)
				Default(500)
			})
			Attribute("timeoutSeconds", Int, "Cancel the query after this many seconds.", func() {
				Minimum(1)
				Maximum(300)
				Default(30)
			})
			Required("sql")
		})
		Return(func() {
			Attribute("columns", ArrayOf(String), "Column names of the result.")
			Attribute("rows", ArrayOf(ArrayOf(Any)), "Result rows, one array of values per row.")
			Required("columns", "rows")
		})
		BoundedResult()
		CallHintTemplate("Running {{ truncate .sql 60 }}")
		Tags("silent", "query")
		Keywords("sql", "select", "aggregate", "group by", "join")
		Exposure("read_only")
	})

	Tool("explainQuery", "Show the execution plan of a SQL query with estimated costs, the indexes it would use and any sequential scans, without running it. Use it to find out why a query is slow.", func() {
		Title("Explain query plan")
		Args(func() {
			Attribute("sql", String, "The query to explain.")
			Attribute("analyze", Boolean, "Also run the query and report actual row counts and timings; SELECT only.")
			Required("sql")
		})
		Return(func() {
			Attribute("plan", String, "Execution plan as text, one node per line.")
			Attribute("estimatedCost", Float64, "Planner's estimated total cost.")
			Attribute("sequentialScans", ArrayOf(String), "Tables the plan reads with a sequential scan.")
			Attribute("indexes", ArrayOf(String), "Indexes the plan uses.")
			Required("plan")
		})
		Tags("silent", "query", "performance")
		Keywords("query plan", "performance", "slow", "optimize")
		Exposure("read_only")
	})

	Tool("findColumns", "Search every table for columns whose name or comment matches a text, optionally of one type. Answers questions such as 'which table has the customer email?'.", func() {
		Args(func() {
			Attribute("text", String, "Text to match in column names and comments.")
			Attribute("type", String, "Only columns of this SQL type, e.g. timestamp.")
			Required("text")
		})
		Return(func() {
			Attribute("columns", ArrayOf("ColumnMatch"), "Matching columns, best first.")
			Required("columns")
		})
		BoundedResult()
		Tags("silent", "schema")
		Keywords("where is", "field", "locate column")
		Exposure("read_only")
	})

	Tool("getColumnStats", "Profile a column: fraction of nulls, number of distinct values, min, max, mean, most common values and a histogram.", func() {
		Title("Get column statistics")
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("column", String, "Column to profile.")
			Attribute("sample", Boolean, "Estimate from a sample instead of scanning the whole table.")
			Required("table", "column")
		})
		Return(func() {
			Attribute("nullFraction", Float64, "Fraction of rows whose value is null.")
			Attribute("distinct", Int64, "Number of distinct values.")
			Attribute("min", Any, "Smallest value.")
			Attribute("max", Any, "Largest value.")
			Attribute("mean", Float64, "Mean, for numeric columns.")
			Attribute("mostCommon", ArrayOf(Any), "Most common values, most frequent first.")
			Attribute("histogram", ArrayOf(Int64), "Row counts of equal-width buckets between min and max.")
			Required("nullFraction", "distinct")
		})
		Tags("silent", "schema", "statistics")
		Keywords("profile", "distribution", "distinct", "nulls", "histogram")
		Exposure("read_only")
	})

	Tool("getIndexStats", "Report a table's indexes with their columns, size on disk and scan counts, and flag unused or duplicate indexes.", func() {
		Title("Get index statistics")
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("includeUnused", Boolean, "Include indexes never scanned since statistics were last reset.")
			Required("table")
		})
		Return(func() {
			Attribute("indexes", ArrayOf("IndexStat"), "Indexes of the table.")
			Required("indexes")
		})
		Tags("silent", "indexes", "performance")
		Keywords("index usage", "index size", "unused indexes", "performance")
		Exposure("read_only")
	})

	Tool("listRelations", "List a table's foreign-key relations: the tables it references and those that reference it, with the joining columns. Use it to write joins.", func() {
		Title("List table relations")
		Args(func() {
			Attribute("table", String, "Table name, optionally schema-qualified, e.g. sales.orders.")
			Attribute("direction", String, "Which relations to list.", func() {
				Enum("outgoing", "incoming", "both")
				Default("both")
			})
			Required("table")
		})
		Return(func() {
			Attribute("relations", ArrayOf("Relation"), "Foreign-key relations of the table.")
			Required("relations")
		})
		Tags("silent", "schema")
		Keywords("foreign key", "join", "references", "related tables")
		Exposure("read_only")
	})
}
