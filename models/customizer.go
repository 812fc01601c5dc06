package models

import (
	"time"

	"github.com/uptrace/bun"
)

// The product customizer's records (migration 20261125030000_customizer,
// README "Product customizer"). Their storage functions live beside them in
// customizer_*.go, one file per part of the area; the rules that are not
// storage (element settings, conditions, selections, a customised line's
// price) live in internal/customizer.

// CzDesign is a canvas in pixels that elements are placed on.
type CzDesign struct {
	bun.BaseModel `bun:"table:cz_designs,alias:czd"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	Name      string    `bun:"name" json:"name"`
	WidthPx   int64     `bun:"width_px" json:"width_px"`
	HeightPx  int64     `bun:"height_px" json:"height_px"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// CzElement is one element of a design: text, an image, an artwork slot, a
// shape … (internal/customizer lists the types and their settings).
type CzElement struct {
	bun.BaseModel `bun:"table:cz_elements,alias:cze"`

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID     int64     `bun:"store_id" json:"-"`
	DesignID    int64     `bun:"design_id" json:"design_id"`
	ElementKey  string    `bun:"element_key" json:"element_key"`
	GroupKey    string    `bun:"group_key" json:"group_key"`
	Type        string    `bun:"type" json:"type"`
	X           float64   `bun:"x" json:"x"`
	Y           float64   `bun:"y" json:"y"`
	W           float64   `bun:"w" json:"w"`
	H           float64   `bun:"h" json:"h"`
	RotationDeg float64   `bun:"rotation_deg" json:"rotation_deg"`
	ZIndex      int64     `bun:"z_index" json:"z_index"`
	Settings    any       `bun:"settings,type:jsonb" json:"settings"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzStudioElement is an element as the studio shows it: with how many
// option-value functions target it.
type CzStudioElement struct {
	CzElement    `bun:",extend"`
	ReferencedBy int64 `bun:"referenced_by,scanonly" json:"referenced_by"`
}

// CzLibrary is an artwork library: ordered items of one kind.
type CzLibrary struct {
	bun.BaseModel `bun:"table:cz_libraries,alias:czl"`

	ID         int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID    int64     `bun:"store_id" json:"-"`
	Name       string    `bun:"name" json:"name"`
	Kind       string    `bun:"kind" json:"kind"`
	GroupKey   string    `bun:"group_key" json:"group_key"`
	ScopeValue string    `bun:"scope_value" json:"scope_value"`
	CreatedAt  time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzLibraryItem is one item of a library at its position.
type CzLibraryItem struct {
	bun.BaseModel `bun:"table:cz_library_items,alias:czli"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	LibraryID int64     `bun:"library_id" json:"library_id"`
	Position  int64     `bun:"position" json:"position"`
	Value     any       `bun:"value,type:jsonb" json:"value"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzLibraryCatalogue sums up the libraries of one group_key.
type CzLibraryCatalogue struct {
	GroupKey string `bun:"group_key" json:"group_key"`
	Items    int64  `bun:"items" json:"items"`
	Finishes int64  `bun:"finishes" json:"finishes"`
	Holes    int64  `bun:"holes" json:"holes"`
}

// CzProductBase is the blank a design is printed on.
type CzProductBase struct {
	bun.BaseModel `bun:"table:cz_product_bases,alias:czb"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	Name      string    `bun:"name" json:"name"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// CzMockup is a photo of a product base, from the store's uploads.
type CzMockup struct {
	bun.BaseModel `bun:"table:cz_mockups,alias:czm"`

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64     `bun:"store_id" json:"-"`
	ProductBaseID int64     `bun:"product_base_id" json:"product_base_id"`
	Name          string    `bun:"name" json:"name"`
	Position      int64     `bun:"position" json:"position"`
	ImageSrc      string    `bun:"image_src" json:"image_src"`
	ImageWidth    int64     `bun:"image_width" json:"image_width"`
	ImageHeight   int64     `bun:"image_height" json:"image_height"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzPrintArea is where a design goes on a mockup, in the photo's pixels.
type CzPrintArea struct {
	bun.BaseModel `bun:"table:cz_print_areas,alias:czp"`

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID     int64     `bun:"store_id" json:"-"`
	MockupID    int64     `bun:"mockup_id" json:"mockup_id"`
	Name        string    `bun:"name" json:"name"`
	Position    int64     `bun:"position" json:"position"`
	X           float64   `bun:"x" json:"x"`
	Y           float64   `bun:"y" json:"y"`
	W           float64   `bun:"w" json:"w"`
	H           float64   `bun:"h" json:"h"`
	RotationDeg float64   `bun:"rotation_deg" json:"rotation_deg"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzOptionSet gathers the options a shopper fills for a product.
type CzOptionSet struct {
	bun.BaseModel `bun:"table:cz_option_sets,alias:czs"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	Name      string    `bun:"name" json:"name"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// CustomizerCondition shows an option only when an earlier option's answer
// passes: op is equals, not_equals, in, not_in, filled or empty.
type CustomizerCondition struct {
	Op       string   `json:"op"`
	OptionID int64    `json:"option_id"`
	Value    *string  `json:"value,omitempty"`
	Values   []string `json:"values,omitempty"`
}

// CustomizerFunction sets a property of a design element (ElementKey) or of
// every element of a group (GroupKey) when its option value is picked.
type CustomizerFunction struct {
	ElementKey *string `json:"element_key,omitempty"`
	GroupKey   *string `json:"group_key,omitempty"`
	Property   string  `json:"property"`
	Value      string  `json:"value"`
}

// CzTextValidation is what a text option's answer must keep to; zero values
// impose nothing.
type CzTextValidation struct {
	MaxLength    int64  `json:"max_length"`
	MaxLines     int64  `json:"max_lines"`
	CharsPerLine int64  `json:"chars_per_line"`
	Pattern      string `json:"pattern"`
	Mode         string `json:"mode"`
}

// CzOption is one option of an option set.
type CzOption struct {
	bun.BaseModel `bun:"table:cz_options,alias:czo"`

	ID                int64                 `bun:"id,pk,autoincrement" json:"id"`
	StoreID           int64                 `bun:"store_id" json:"-"`
	OptionSetID       int64                 `bun:"option_set_id" json:"option_set_id"`
	Label             string                `bun:"label" json:"label"`
	Type              string                `bun:"type" json:"type"`
	Position          int64                 `bun:"position" json:"position"`
	Required          bool                  `bun:"required" json:"required"`
	Section           string                `bun:"section" json:"section"`
	HelpText          string                `bun:"help_text" json:"help_text"`
	Settings          any                   `bun:"settings,type:jsonb" json:"settings"`
	Validation        CzTextValidation      `bun:"validation,type:jsonb" json:"validation"`
	PricePerCharCents int64                 `bun:"price_per_char_cents" json:"price_per_char_cents"`
	Conditions        []CustomizerCondition `bun:"conditions,type:jsonb" json:"conditions"`
	CreatedAt         time.Time             `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzOptionValue is one value of a choice option; Value is its slug.
type CzOptionValue struct {
	bun.BaseModel `bun:"table:cz_option_values,alias:czv"`

	ID              int64                `bun:"id,pk,autoincrement" json:"id"`
	StoreID         int64                `bun:"store_id" json:"-"`
	OptionID        int64                `bun:"option_id" json:"option_id"`
	Label           string               `bun:"label" json:"label"`
	Value           string               `bun:"value" json:"value"`
	Position        int64                `bun:"position" json:"position"`
	PriceDeltaCents int64                `bun:"price_delta_cents" json:"price_delta_cents"`
	SwatchHex       string               `bun:"swatch_hex" json:"swatch_hex"`
	ThumbnailURL    string               `bun:"thumbnail_url" json:"thumbnail_url"`
	Functions       []CustomizerFunction `bun:"functions,type:jsonb" json:"functions"`
	CreatedAt       time.Time            `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzReplaceOptionValues is what a bulk replace of an option's values did.
type CzReplaceOptionValues struct {
	Created int64           `json:"created"`
	Updated int64           `json:"updated"`
	Deleted int64           `json:"deleted"`
	Values  []CzOptionValue `json:"values"`
}

// CzTemplate binds a design to a product base with its export and pricing.
type CzTemplate struct {
	bun.BaseModel `bun:"table:cz_templates,alias:czt"`

	ID                        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID                   int64     `bun:"store_id" json:"-"`
	Name                      string    `bun:"name" json:"name"`
	DesignID                  int64     `bun:"design_id" json:"design_id"`
	ProductBaseID             int64     `bun:"product_base_id" json:"product_base_id"`
	ExportFormat              string    `bun:"export_format" json:"export_format"`
	PPI                       int64     `bun:"ppi" json:"ppi"`
	IncludedColors            int64     `bun:"included_colors" json:"included_colors"`
	IncludedElements          int64     `bun:"included_elements" json:"included_elements"`
	PricePerExtraColorCents   int64     `bun:"price_per_extra_color_cents" json:"price_per_extra_color_cents"`
	PricePerExtraElementCents int64     `bun:"price_per_extra_element_cents" json:"price_per_extra_element_cents"`
	CreatedAt                 time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt                 time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// CzQuantityTier prices a template's lines from MinQty units on.
type CzQuantityTier struct {
	bun.BaseModel `bun:"table:cz_quantity_tiers,alias:czq"`

	ID         int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID    int64     `bun:"store_id" json:"-"`
	TemplateID int64     `bun:"template_id" json:"template_id"`
	MinQty     int64     `bun:"min_qty" json:"min_qty"`
	Position   int64     `bun:"position" json:"position"`
	PriceCents int64     `bun:"price_cents" json:"price_cents"`
	CreatedAt  time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CzProductBinding makes a product (or the variants with one option value)
// personalisable with a template and an option set.
type CzProductBinding struct {
	bun.BaseModel `bun:"table:cz_product_bindings,alias:czpb"`

	ID                int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID           int64     `bun:"store_id" json:"-"`
	ProductID         int64     `bun:"product_id" json:"product_id"`
	TemplateID        int64     `bun:"template_id" json:"template_id"`
	OptionSetID       int64     `bun:"option_set_id" json:"option_set_id"`
	OptionName        string    `bun:"option_name" json:"option_name"`
	OptionValue       string    `bun:"option_value" json:"option_value"`
	LibraryScope      string    `bun:"library_scope" json:"library_scope"`
	DefaultSelections any       `bun:"default_selections,type:jsonb" json:"default_selections"`
	CreatedAt         time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt         time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// CzSelection is a shopper's answer to one option, as a customised line
// carries it.
type CzSelection struct {
	Picked  bool   `json:"picked"`
	Raw     string `json:"raw"`
	ValueID int64  `json:"value_id"`
}

// CzUsage counts what uses a design, an option set or a product base.
type CzUsage struct {
	ProductCount  int64 `json:"product_count"`
	TemplateCount int64 `json:"template_count"`
}

// CustomizerImportResult counts what a template bundle's import created
// (and the artwork catalogues it reused).
type CustomizerImportResult struct {
	DesignID            int64   `json:"design_id"`
	Elements            int64   `json:"elements"`
	LibrariesCreated    int64   `json:"libraries_created"`
	LibrariesReused     int64   `json:"libraries_reused"`
	LibraryItemsCreated int64   `json:"library_items_created"`
	OptionSetIDs        []int64 `json:"option_set_ids"`
	Options             int64   `json:"options"`
	ProductBaseID       int64   `json:"product_base_id"`
	TemplateID          int64   `json:"template_id"`
	Values              int64   `json:"values"`
}
