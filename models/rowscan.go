package models

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// scanRows runs q, a select of T records built on db, and appends its rows
// to *rows, as q.Scan would: the same columns into the same fields, NULL as
// the zero value, a joined relation's struct made when one of its columns
// is not NULL.
//
// Outside a transaction it reads with pgx itself on one of the pool's
// connections, decoding each value straight into a holder and copying it
// into its field. Through database/sql, every value is first boxed into an
// interface (a string twice over), then bun converts it by reflection and
// parses arrays from text: on the benchmark's REST product page that was
// half of the request's allocations and a third of its CPU.
//
// A record type with a field this reader does not know (a type other than
// strings, integers, floats, booleans, times, their pointers, string and
// integer arrays, and JSON) is read by bun, as is everything inside a
// transaction (bun.Tx does not lend its connection) and everything on a
// database with query hooks, which would not see this reader's statements. TestRowScanReadsAsBunDoes
// holds the two to the same answers.
func scanRows[T any](ctx context.Context, db bun.IDB, q *bun.SelectQuery, rows *[]T) error {
	bdb, ok := db.(*bun.DB)
	typ := reflect.TypeFor[T]()
	if !ok || hooked(bdb) || bunOnly(bdb.Table(typ)) {
		return q.Scan(ctx)
	}
	query, err := q.AppendQuery(bdb.QueryGen(), nil)
	if err != nil {
		return err
	}
	conn, err := bdb.DB.Conn(ctx)
	if err != nil {
		return err
	}
	var planless bool
	err = conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			planless = true
			return nil
		}
		r, err := c.Conn().Query(ctx, string(query))
		if err != nil {
			return err
		}
		defer r.Close()
		plan := planFor(bdb.Table(typ), r.FieldDescriptions())
		if plan == nil {
			planless = true
			return nil
		}
		if err := plan.read(r, rowsOf(rows)); err != nil {
			return err
		}
		return r.Err()
	})
	conn.Close()
	if planless {
		readByBun.Store(typ, true)
		*rows = (*rows)[:0]
		return q.Scan(ctx)
	}
	return err
}

// hooked reports whether db has query hooks (tracing, a test that holds
// or fails a statement): they see only what bun runs, so then bun reads
// everything. bun does not say, so its unexported list is looked at.
func hooked(db *bun.DB) bool {
	return reflect.ValueOf(db).Elem().FieldByIndex(queryHooksIndex).Len() > 0
}

var queryHooksIndex = func() []int {
	f, ok := reflect.TypeFor[bun.DB]().FieldByName("queryHooks")
	if !ok || f.Type.Kind() != reflect.Slice {
		panic("models: bun.DB has no queryHooks slice; scanRows must learn another way to see hooks")
	}
	return f.Index
}()

// readByBun holds, for each record type scanRows has met, whether it leaves
// it to bun.
var readByBun sync.Map // reflect.Type -> bool

// bunOnly reports whether records of table are read by bun: decided from
// their fields' types (and their joinable relations') when first met, so
// the choice costs no statement; a column of a type the fields did not
// foretell (planFor) decides it too.
func bunOnly(table *schema.Table) bool {
	if v, ok := readByBun.Load(table.Type); ok {
		return v.(bool)
	}
	only := !fieldsReadable(table)
	for _, r := range table.Relations {
		if r.Type == schema.HasOneRelation || r.Type == schema.BelongsToRelation {
			only = only || !fieldsReadable(r.JoinTable)
		}
	}
	readByBun.Store(table.Type, only)
	return only
}

// fieldsReadable reports whether scanRows knows every field type of table.
func fieldsReadable(table *schema.Table) bool {
	for _, f := range table.Fields {
		t := f.StructField.Type
		if _, ok := kindOf(t, typicalOID(t)); !ok {
			return false
		}
	}
	return true
}

// typicalOID is the column type a field of type t is read from: JSON for
// anything that is not a plain value.
func typicalOID(t reflect.Type) uint32 {
	if t.Kind() == reflect.Pointer && t != reflect.PointerTo(timeType) {
		t = t.Elem()
	}
	switch {
	case t == timeType, t == reflect.PointerTo(timeType):
		return pgtype.TimestamptzOID
	}
	switch t.Kind() {
	case reflect.String:
		return pgtype.TextOID
	case reflect.Int64, reflect.Int:
		return pgtype.Int8OID
	case reflect.Int32:
		return pgtype.Int4OID
	case reflect.Bool:
		return pgtype.BoolOID
	case reflect.Float64:
		return pgtype.Float8OID
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.String:
			return pgtype.TextArrayOID
		case reflect.Int64:
			return pgtype.Int8ArrayOID
		case reflect.Uint8:
			return pgtype.ByteaOID
		}
	case reflect.Map, reflect.Struct, reflect.Interface:
		return pgtype.JSONBOID
	}
	if t.Kind() == reflect.Slice {
		return pgtype.JSONBOID
	}
	return 0
}

// rowSink appends zeroed records to a slice of records and says where the
// new one is, without knowing its type.
type rowSink interface{ next() unsafe.Pointer }

type sliceSink[T any] struct{ s *[]T }

func (k sliceSink[T]) next() unsafe.Pointer {
	var zero T
	*k.s = append(*k.s, zero)
	return unsafe.Pointer(&(*k.s)[len(*k.s)-1])
}

func rowsOf[T any](s *[]T) rowSink { return sliceSink[T]{s} }

// scanKind is how one column's value is held and copied into its field.
type scanKind uint8

const (
	kString scanKind = iota
	kStringPtr
	kInt64
	kInt64Ptr
	kInt32
	kInt
	kBool
	kBoolPtr
	kFloat64
	kFloat64Ptr
	kTime
	kTimePtr
	kStrings
	kInt64s
	kJSON
)

// scanColumn is one result column: where its value goes and its holder.
type scanColumn struct {
	kind scanKind
	// rel is the index of the joined relation the field belongs to, or -1
	// for the record's own; off is the field's offset in its struct.
	rel int
	off uintptr
	// typ is the field's type, for JSON.
	typ reflect.Type
}

// relation is a joined has-one or belongs-to record: the pointer field
// holding it and its struct type.
type relation struct {
	off uintptr
	typ reflect.Type
}

// scanPlan reads rows of one shape (their columns) into one record type.
type scanPlan struct {
	cols  []scanColumn
	rels  []relation
	names []string
	oids  []uint32
}

// plans caches scanPlans by record type and a hash of the columns' names
// and types; a plan holds the columns it was made for, so a collision
// only costs making another.
var plans sync.Map // planKey -> *scanPlan (nil: not readable here)

type planKey struct {
	t    reflect.Type
	hash uint64
}

var planSeed = maphash.MakeSeed()

// planFor is the plan reading fields into records of table, or nil when a
// column is one this reader does not know.
func planFor(table *schema.Table, fields []pgconn.FieldDescription) *scanPlan {
	var h maphash.Hash
	h.SetSeed(planSeed)
	for _, f := range fields {
		h.WriteString(f.Name)
		h.WriteByte(0)
		var oid [4]byte
		binary.LittleEndian.PutUint32(oid[:], f.DataTypeOID)
		h.Write(oid[:])
	}
	key := planKey{table.Type, h.Sum64()}
	if p, ok := plans.Load(key); ok {
		if p := p.(*scanPlan); p == nil || p.madeFor(fields) {
			return p
		}
	}
	p := makePlan(table, fields)
	plans.Store(key, p)
	return p
}

// madeFor reports whether p reads columns like fields.
func (p *scanPlan) madeFor(fields []pgconn.FieldDescription) bool {
	if len(p.names) != len(fields) {
		return false
	}
	for i, f := range fields {
		if p.names[i] != f.Name || p.oids[i] != f.DataTypeOID {
			return false
		}
	}
	return true
}

func makePlan(table *schema.Table, fields []pgconn.FieldDescription) *scanPlan {
	p := &scanPlan{cols: make([]scanColumn, len(fields))}
	rels := map[string]int{}
	for i, f := range fields {
		p.names, p.oids = append(p.names, f.Name), append(p.oids, f.DataTypeOID)
		t, rel, name := table, -1, f.Name
		if prefix, rest, ok := strings.Cut(f.Name, "__"); ok {
			r := joinedRelation(table, prefix)
			if r == nil || strings.Contains(rest, "__") {
				return nil
			}
			idx, seen := rels[prefix]
			if !seen {
				off, ok := offsetOf(table.Type, r.Field.Index)
				if !ok || r.Field.StructField.Type.Kind() != reflect.Pointer {
					return nil
				}
				idx = len(p.rels)
				p.rels = append(p.rels, relation{off: off, typ: r.JoinTable.Type})
				rels[prefix] = idx
			}
			t, rel, name = r.JoinTable, idx, rest
		}
		field, ok := t.FieldMap[name]
		if !ok {
			return nil
		}
		off, ok := offsetOf(t.Type, field.Index)
		if !ok {
			return nil
		}
		kind, ok := kindOf(field.StructField.Type, f.DataTypeOID)
		if !ok {
			return nil
		}
		p.cols[i] = scanColumn{kind: kind, rel: rel, off: off, typ: field.StructField.Type}
	}
	return p
}

// joinedRelation is table's has-one or belongs-to relation whose columns
// a join names prefix__column.
func joinedRelation(table *schema.Table, prefix string) *schema.Relation {
	for _, r := range table.Relations {
		if r.Field.Name == prefix && (r.Type == schema.HasOneRelation || r.Type == schema.BelongsToRelation) {
			return r
		}
	}
	return nil
}

// offsetOf is the offset of the field at index in t, through embedded
// structs (not pointers to them).
func offsetOf(t reflect.Type, index []int) (uintptr, bool) {
	var off uintptr
	for i, n := range index {
		f := t.Field(n)
		off += f.Offset
		t = f.Type
		if i < len(index)-1 && t.Kind() != reflect.Struct {
			return 0, false
		}
	}
	return off, true
}

// PostgreSQL type OIDs the reader accepts, by what they hold.
var (
	textOIDs  = oidSet(pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID)
	intOIDs   = oidSet(pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID)
	floatOIDs = oidSet(pgtype.Float4OID, pgtype.Float8OID, pgtype.NumericOID)
	jsonOIDs  = oidSet(pgtype.JSONOID, pgtype.JSONBOID)
)

func oidSet(oids ...uint32) map[uint32]bool {
	m := map[uint32]bool{}
	for _, o := range oids {
		m[o] = true
	}
	return m
}

var timeType = reflect.TypeFor[time.Time]()

// kindOf is how a column of type oid is read into a field of type t.
func kindOf(t reflect.Type, oid uint32) (scanKind, bool) {
	if jsonOIDs[oid] {
		switch t.Kind() {
		case reflect.String:
			return kString, true
		case reflect.Pointer:
			if t.Elem().Kind() == reflect.String {
				return kStringPtr, true
			}
		}
		return kJSON, true
	}
	switch {
	case t == timeType:
		return kTime, oid == pgtype.TimestamptzOID
	case t.Kind() == reflect.Pointer && t.Elem() == timeType:
		return kTimePtr, oid == pgtype.TimestamptzOID
	}
	switch t.Kind() {
	case reflect.String:
		return kString, textOIDs[oid]
	case reflect.Int64:
		return kInt64, intOIDs[oid] || oid == pgtype.NumericOID
	case reflect.Int32:
		return kInt32, oid == pgtype.Int2OID || oid == pgtype.Int4OID
	case reflect.Int:
		return kInt, intOIDs[oid]
	case reflect.Bool:
		return kBool, oid == pgtype.BoolOID
	case reflect.Float64:
		return kFloat64, floatOIDs[oid]
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.String:
			return kStrings, oid == pgtype.TextArrayOID || oid == pgtype.VarcharArrayOID
		case reflect.Int64:
			return kInt64s, oid == pgtype.Int8ArrayOID || oid == pgtype.Int4ArrayOID
		}
	case reflect.Pointer:
		switch t.Elem().Kind() {
		case reflect.String:
			return kStringPtr, textOIDs[oid]
		case reflect.Int64:
			return kInt64Ptr, intOIDs[oid] || oid == pgtype.NumericOID
		case reflect.Bool:
			return kBoolPtr, oid == pgtype.BoolOID
		case reflect.Float64:
			return kFloat64Ptr, floatOIDs[oid]
		}
	}
	return 0, false
}

// holders are one row's values as pgx decodes them, a holder per column.
type holders struct {
	text  []pgtype.Text
	ints  []pgtype.Int8
	bools []pgtype.Bool
	flts  []pgtype.Float8
	times []pgtype.Timestamptz
	strs  [][]string
	int64 [][]int64
	raw   [][]byte
	dest  []any
}

// read scans every row of r into a new record of sink.
func (p *scanPlan) read(r pgx.Rows, sink rowSink) error {
	n := len(p.cols)
	h := holders{
		text: make([]pgtype.Text, n), ints: make([]pgtype.Int8, n), bools: make([]pgtype.Bool, n),
		flts: make([]pgtype.Float8, n), times: make([]pgtype.Timestamptz, n),
		strs: make([][]string, n), int64: make([][]int64, n), raw: make([][]byte, n), dest: make([]any, n),
	}
	for i, c := range p.cols {
		switch c.kind {
		case kString, kStringPtr:
			h.dest[i] = &h.text[i]
		case kInt64, kInt64Ptr, kInt32, kInt:
			h.dest[i] = &h.ints[i]
		case kBool, kBoolPtr:
			h.dest[i] = &h.bools[i]
		case kFloat64, kFloat64Ptr:
			h.dest[i] = &h.flts[i]
		case kTime, kTimePtr:
			h.dest[i] = &h.times[i]
		case kStrings:
			h.dest[i] = &h.strs[i]
		case kInt64s:
			h.dest[i] = &h.int64[i]
		case kJSON:
			h.dest[i] = &h.raw[i]
		}
	}
	relBase := make([]unsafe.Pointer, len(p.rels))
	for r.Next() {
		for i := range p.cols {
			h.strs[i], h.int64[i], h.raw[i] = nil, nil, nil
		}
		if err := r.Scan(h.dest...); err != nil {
			return err
		}
		row := sink.next()
		clear(relBase)
		for i, c := range p.cols {
			if !h.valid(i, c.kind) {
				continue
			}
			base := row
			if c.rel >= 0 {
				if relBase[c.rel] == nil {
					rel := p.rels[c.rel]
					relBase[c.rel] = reflect.New(rel.typ).UnsafePointer()
					*(*unsafe.Pointer)(unsafe.Add(row, rel.off)) = relBase[c.rel]
				}
				base = relBase[c.rel]
			}
			if err := h.set(i, c, unsafe.Add(base, c.off)); err != nil {
				return err
			}
		}
	}
	return nil
}

// valid reports whether column i's value is not NULL.
func (h *holders) valid(i int, k scanKind) bool {
	switch k {
	case kString, kStringPtr:
		return h.text[i].Valid
	case kInt64, kInt64Ptr, kInt32, kInt:
		return h.ints[i].Valid
	case kBool, kBoolPtr:
		return h.bools[i].Valid
	case kFloat64, kFloat64Ptr:
		return h.flts[i].Valid
	case kTime, kTimePtr:
		return h.times[i].Valid
	case kStrings:
		return h.strs[i] != nil
	case kInt64s:
		return h.int64[i] != nil
	default:
		return h.raw[i] != nil
	}
}

// set copies column i's value into the field at p.
func (h *holders) set(i int, c scanColumn, p unsafe.Pointer) error {
	switch c.kind {
	case kString:
		*(*string)(p) = h.text[i].String
	case kStringPtr:
		s := h.text[i].String
		*(**string)(p) = &s
	case kInt64:
		*(*int64)(p) = h.ints[i].Int64
	case kInt64Ptr:
		v := h.ints[i].Int64
		*(**int64)(p) = &v
	case kInt32:
		*(*int32)(p) = int32(h.ints[i].Int64)
	case kInt:
		*(*int)(p) = int(h.ints[i].Int64)
	case kBool:
		*(*bool)(p) = h.bools[i].Bool
	case kBoolPtr:
		v := h.bools[i].Bool
		*(**bool)(p) = &v
	case kFloat64:
		*(*float64)(p) = h.flts[i].Float64
	case kFloat64Ptr:
		v := h.flts[i].Float64
		*(**float64)(p) = &v
	case kTime:
		*(*time.Time)(p) = h.times[i].Time
	case kTimePtr:
		v := h.times[i].Time
		*(**time.Time)(p) = &v
	case kStrings:
		*(*[]string)(p) = h.strs[i]
	case kInt64s:
		*(*[]int64)(p) = h.int64[i]
	case kJSON:
		if err := json.Unmarshal(h.raw[i], reflect.NewAt(c.typ, p).Interface()); err != nil {
			return fmt.Errorf("models: reading a JSON column into %s: %w", c.typ, err)
		}
	}
	return nil
}
