// Package design is the Goa design of the registry example: a warehouse
// service publishes its toolsets to the company registry, and a front-desk
// service's agents consume them from it — the clerk the whole registry,
// searched at every planning step, the auditor one toolset pinned to a
// version.
package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

var _ = API("warehouse", func() {
	Title("Warehouse")
	Description("A warehouse publishing its tools to a registry, and agents consuming them.")
	Version("1.0")
})

// Corp is the company registry. The example starts one in its own process
// and connects to it on a free port, so URL is where a deployment would
// find it.
var Corp = Registry("corp", func() {
	Description("The company's tool registry.")
	URL("http://127.0.0.1:7420")
	Timeout("10s")
	Retry(2, "100ms")
	CacheTTL("1m")
})

// Inventory and Shipping belong to the warehouse: it publishes them.
var Inventory = Toolset("inventory", func() {
	Description("Stock levels of the warehouse.")
	Tool("stock", "Count the units of a product in stock", func() {
		Args(func() {
			Attribute("sku", String, "The product's stock-keeping unit, e.g. WIDGET-1.")
			Required("sku")
		})
		Return(func() {
			Attribute("sku", String, "The product.")
			Attribute("units", Int, "Units in stock.")
			Required("sku", "units")
		})
		Keywords("inventory", "how many", "available")
	})
})

var Shipping = Toolset("shipping", func() {
	Description("Parcels leaving the warehouse.")
	Tool("ship", "Ship units of a product to a city", func() {
		Args(func() {
			Attribute("sku", String, "The product.")
			Attribute("units", Int, "How many units.", func() { Minimum(1) })
			Attribute("city", String, "Where to.")
			Required("sku", "units", "city")
		})
		Return(func() {
			Attribute("parcel", String, "The parcel's tracking id.")
			Required("parcel")
		})
		Confirmation(func() {
			Title("Ship it?")
			PromptTemplate("Ship {{ .units }} × {{ .sku }} to {{ .city }}?")
		})
		Keywords("send", "deliver", "order")
	})
})

var _ = Service("warehouse", func() {
	Description("The warehouse: it publishes its toolsets to the registry.")
	Export(Inventory, func() { PublishTo(Corp) })
	Export(Shipping, func() { PublishTo(Corp) })
})

// Stock is the auditor's source: the inventory toolset as the registry
// publishes it, pinned to the version the audit was written for.
var Stock = Toolset(FromRegistry(Corp, "inventory"), func() {
	Version("2.0.0")
})

var _ = Service("front", func() {
	Description("The front desk: agents answering from the registry's tools.")
	Agent("clerk", "Answers stock questions and ships orders with the tools the registry lists.", func() {
		Use(Corp, func() { Deferred() })
	})
	Agent("auditor", "Audits stock levels against the inventory contract version 2.0.0.", func() {
		Use(Stock)
	})
})
