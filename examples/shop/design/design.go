// Package design is the Goa design of the shop example: a shop service
// whose methods take and return nested types; a clerk agent whose place
// tool is bound to the Place method (BindTo), with server data projected
// from a nested field of its result; and a receipts toolset the clerk
// exports whose tool forwards to the GetReceipt method (Passthrough), used by
// a front desk agent with no child run.
package design

import (
	. "goa.design/goa/v3/dsl"

	. "github.com/quiver-go/quiver/dsl"
)

var _ = API("shop", func() {
	Title("Tools bound to service methods")
	Description("A clerk placing orders through a Goa service, and a front desk reading receipts.")
	Version("1.0")
})

// Line is one line of an order.
var Line = Type("Line", func() {
	Attribute("sku", String, "The article.")
	Attribute("qty", Int, "How many.", func() { Default(1) })
	Attribute("note", String, "A note for the packer.")
	Required("sku")
})

// Address is where an order ships.
var Address = Type("Address", func() {
	Attribute("city", String, "The city.")
	Attribute("zip", String, "The postal code.")
	Required("city")
})

// Order is an order: lines, an optional address, lines by article.
var Order = Type("Order", func() {
	Attribute("id", String, "The order id.")
	Attribute("lines", ArrayOf(Line), "The lines.")
	Attribute("ship", Address, "Where it ships.")
	Attribute("by_sku", MapOf(String, Line), "The lines by article.")
	Required("id", "lines")
})

// Summary is what the shop tells the UI about a placed order.
var Summary = Type("Summary", func() {
	Attribute("count", Int, "The number of lines.")
	Attribute("lines", ArrayOf(Line), "The lines as placed.")
	Required("count")
})

// Receipt is the receipt of an order.
var Receipt = Type("Receipt", func() {
	Attribute("order_id", String, "The order id.")
	Attribute("lines", ArrayOf(Line), "The lines billed.")
	Attribute("total", Float64, "The total.")
	Required("order_id", "lines", "total")
})

var _ = Service("shop", func() {
	Description("The shop.")
	Method("Place", func() {
		Payload(func() {
			Attribute("order", Order, "The order to place.")
			Attribute("dry_run", Boolean, "Check only.", func() { Default(false) })
			Required("order")
		})
		Result(func() {
			Attribute("order", Order, "The order as placed.")
			Attribute("total", Float64, "The total.")
			Attribute("summary", Summary, "The UI summary.")
			Attribute("internal_ref", String, "The warehouse reference.")
			Required("order", "total")
		})
	})
	Method("GetReceipt", func() {
		Payload(func() {
			Attribute("order_id", String, "The order id.")
			Required("order_id")
		})
		Result(func() {
			Attribute("receipt", Receipt, "The receipt.")
			Required("receipt")
		})
	})
	// The clerk places orders: its place tool calls the Place method.
	Agent("clerk", "Places orders.", func() {
		Use("orders", func() {
			Tool("place", "Place an order", func() {
				Args(func() {
					Attribute("order", Order, "The order to place.")
					Required("order")
				})
				Return(func() {
					Attribute("order", Order, "The order as placed.")
					Attribute("total", Float64, "The total.")
					Required("order", "total")
				})
				BindTo("Place")
				ServerData("shop.summary", Summary, func() {
					AudienceTimeline()
					FromMethodResultField("summary")
				})
			})
		})
		// The receipts toolset forwards to the Receipt method: its calls
		// never run the clerk.
		Export("receipts", func() {
			Description("Receipts of placed orders.")
			Tool("receipt", "Read the receipt of an order", func() {
				Args(func() {
					Attribute("order_id", String, "The order id.")
					Required("order_id")
				})
				Return(func() {
					Attribute("receipt", Receipt, "The receipt.")
					Required("receipt")
				})
				Passthrough("receipt", "shop", "GetReceipt")
			})
		})
		RunPolicy(func() { DefaultCaps(MaxToolCalls(4)) })
	})
	// The front desk reads receipts through the clerk's export.
	Agent("desk", "Answers customers about their orders.", func() {
		Use(AgentToolset("shop", "clerk", "receipts"))
		RunPolicy(func() { DefaultCaps(MaxToolCalls(4)) })
	})
})
