package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"atende/engine"
	"atende/persistence/db"
)

// Catalog implements engine.CatalogStore on either dialect: categories in
// catalog_categories, items in catalog_items (migration 0600). Duplicate names are
// refused by the unique indexes on the folded name, never by a read before the write.
//
// Safe for concurrent use.
type Catalog struct {
	refBase
}

var _ engine.CatalogStore = (*Catalog)(nil)

// NewCatalog returns the catalog store of d; a nil clock is the system clock.
func NewCatalog(d *db.DB, clock engine.Clock) *Catalog {
	return &Catalog{refBase: newRefBase(d, clock)}
}

// maxCatalogLimit caps CatalogQuery.Limit.
const maxCatalogLimit = 200

const categoryCols = `id, company_id, category_name, mustaccio, display_name, is_active, template, created_at, updated_at`

func scanCategory(row refScanner) (engine.Category, error) {
	var c engine.Category
	err := row.Scan(&c.ID, &c.CompanyID, &c.CategoryName, &c.Mustaccio, &c.DisplayName, &c.IsActive,
		&c.Template, refTime{&c.CreatedAt}, refTime{&c.UpdatedAt})
	return c, err
}

// catalogTerm is the folded search term with the composer's trigger dropped; ok is
// false when the term is too long to match anything.
func catalogTerm(search string) (term string, ok bool) {
	s := strings.TrimSpace(search)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "#"), "@")
	term = refFold(s)
	return term, len([]rune(term)) <= refMaxTerm
}

func catalogPage(q engine.CatalogQuery) (limit int, err error) {
	limit = q.Limit
	if limit <= 0 {
		limit = engine.CatalogPageSize
	}
	if q.Offset < 0 {
		return 0, refFieldError("pageNumber", engine.MsgInvalidValue)
	}
	return min(limit, maxCatalogLimit), nil
}

// ListCategories implements engine.CatalogStore, by folded name.
func (s *Catalog) ListCategories(ctx context.Context, companyID engine.ID, q engine.CatalogQuery) ([]engine.Category, int, bool, error) {
	out := []engine.Category{}
	limit, err := catalogPage(q)
	if err != nil {
		return out, 0, false, err
	}
	term, ok := catalogTerm(q.Search)
	if !ok {
		return out, 0, false, nil
	}
	where := `company_id = $1`
	args := []any{companyID}
	if term != "" {
		where += ` AND name_key LIKE $2 ESCAPE '\'`
		args = append(args, refLike(term))
	}
	if q.ActiveOnly {
		where += ` AND is_active`
	}
	return catalogPageOf(ctx, s.db.SQL, `SELECT count(*) FROM catalog_categories WHERE `+where,
		`SELECT `+categoryCols+` FROM catalog_categories WHERE `+where+` ORDER BY name_key, id`,
		args, limit, q.Offset, scanCategory, fmt.Sprintf("categories of %d", companyID))
}

// GetCategory implements engine.CatalogStore.
func (s *Catalog) GetCategory(ctx context.Context, companyID, id engine.ID) (engine.Category, error) {
	return s.getCategory(ctx, s.db.SQL, companyID, id)
}

func (s *Catalog) getCategory(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.Category, error) {
	c, err := scanCategory(q.QueryRowContext(ctx, `SELECT `+categoryCols+` FROM catalog_categories
		WHERE id = $1 AND company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, engine.E(engine.ErrNoCategoryFound)
	}
	if err != nil {
		return c, fmt.Errorf("get category %d: %w", id, err)
	}
	return c, nil
}

// CreateCategory implements engine.CatalogStore.
func (s *Catalog) CreateCategory(ctx context.Context, companyID engine.ID, in engine.CategoryInput) (engine.Category, error) {
	in, err := engine.ValidateCategory(in)
	if err != nil {
		return engine.Category{}, err
	}
	c, err := scanCategory(s.db.SQL.QueryRowContext(ctx, `INSERT INTO catalog_categories
		(company_id, category_name, name_key, mustaccio, display_name, is_active, template, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING `+categoryCols,
		companyID, in.CategoryName, refFold(in.CategoryName), in.Mustaccio, in.DisplayName, *in.IsActive,
		in.Template, s.ts(s.now())))
	if db.IsUniqueViolation(err) {
		return c, &engine.Error{Code: engine.ErrCategoryNameDuplicated, Cause: err}
	}
	if err != nil {
		return c, fmt.Errorf("insert category: %w", err)
	}
	return c, nil
}

// UpdateCategory implements engine.CatalogStore. A category of another tenant is not
// found before its input is validated.
func (s *Catalog) UpdateCategory(ctx context.Context, companyID, id engine.ID, in engine.CategoryInput) (engine.Category, error) {
	var out engine.Category
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := s.getCategory(ctx, tx, companyID, id); err != nil {
			return err
		}
		in, err := engine.ValidateCategory(in)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE catalog_categories SET category_name = $1, name_key = $2,
			mustaccio = $3, display_name = $4, is_active = $5, template = $6, updated_at = $7
			WHERE id = $8 AND company_id = $9`,
			in.CategoryName, refFold(in.CategoryName), in.Mustaccio, in.DisplayName, *in.IsActive, in.Template,
			s.ts(s.now()), id, companyID)
		if db.IsUniqueViolation(err) {
			return &engine.Error{Code: engine.ErrCategoryNameDuplicated, Cause: err}
		}
		if err != nil {
			return fmt.Errorf("update category %d: %w", id, err)
		}
		out, err = s.getCategory(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// DeleteCategory implements engine.CatalogStore. Its items stay, without a category
// (the foreign key's ON DELETE SET NULL).
func (s *Catalog) DeleteCategory(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM catalog_categories WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete category %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete category %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoCategoryFound)
	}
	return nil
}

// itemSelect reads an item with its category (if any) in one row.
const itemSelect = `SELECT i.id, i.company_id, i.item_name, i.description, i.manufacturer, i.dimensions,
	i.unit_name, i.pax, i.sort_order, i.base_cents, i.delivery_cents, i.product_img, i.user_data,
	i.created_at, i.updated_at,
	c.id, c.category_name, c.mustaccio, c.display_name, c.is_active, c.template, c.created_at, c.updated_at
	FROM catalog_items i LEFT JOIN catalog_categories c ON c.id = i.category_id`

func scanItem(row refScanner) (engine.CatalogItem, error) {
	var (
		it                  engine.CatalogItem
		base, delivery      int64
		userData            string
		catID               sql.NullInt64
		catName, catMust    sql.NullString
		catDisplay, catTmpl sql.NullString
		catActive           sql.NullBool
		catCreated, catUpd  *time.Time
	)
	err := row.Scan(&it.ID, &it.CompanyID, &it.ItemName, &it.Description, &it.Manufacturer, &it.Dimensions,
		&it.UnitName, &it.Pax, &it.Order, &base, &delivery, &it.ProductImg, &userData,
		refTime{&it.CreatedAt}, refTime{&it.UpdatedAt},
		&catID, &catName, &catMust, &catDisplay, &catActive, &catTmpl, refNullTime{&catCreated}, refNullTime{&catUpd})
	if err != nil {
		return it, err
	}
	it.BaseValue, it.DeliveryValue = float64(base)/100, float64(delivery)/100
	var ud []string
	if err := json.Unmarshal([]byte(userData), &ud); err != nil {
		return it, fmt.Errorf("item %d user data: %w", it.ID, err)
	}
	for i, p := range it.UserDataFields() {
		if i < len(ud) {
			*p = ud[i]
		}
	}
	it.Categories = []engine.Category{}
	if catID.Valid {
		c := engine.Category{ID: engine.ID(catID.Int64), CompanyID: it.CompanyID, CategoryName: catName.String,
			Mustaccio: catMust.String, DisplayName: catDisplay.String, IsActive: catActive.Bool, Template: catTmpl.String}
		if catCreated != nil {
			c.CreatedAt = *catCreated
		}
		if catUpd != nil {
			c.UpdatedAt = *catUpd
		}
		it.CategoryID, it.Category, it.Categories = c.ID, &c, []engine.Category{c}
		it.Message = engine.RenderCatalogTemplate(c.Template, it, &c)
	} else {
		it.Message = engine.RenderCatalogTemplate("", it, nil)
	}
	return it, nil
}

// ListItems implements engine.CatalogStore, by order then folded name. The search
// matches the item's name, description and manufacturer or its category's name, so
// searchParam=sticker lists the items of the sticker category.
func (s *Catalog) ListItems(ctx context.Context, companyID engine.ID, q engine.CatalogQuery) ([]engine.CatalogItem, int, bool, error) {
	out := []engine.CatalogItem{}
	limit, err := catalogPage(q)
	if err != nil {
		return out, 0, false, err
	}
	term, ok := catalogTerm(q.Search)
	if !ok {
		return out, 0, false, nil
	}
	where := `i.company_id = $1`
	args := []any{companyID}
	if term != "" {
		where += ` AND (i.search LIKE $2 ESCAPE '\' OR c.name_key LIKE $2 ESCAPE '\')`
		args = append(args, refLike(term))
	}
	if q.ActiveOnly {
		where += ` AND (c.id IS NULL OR c.is_active)`
	}
	return catalogPageOf(ctx, s.db.SQL, `SELECT count(*) FROM catalog_items i
		LEFT JOIN catalog_categories c ON c.id = i.category_id WHERE `+where,
		itemSelect+` WHERE `+where+` ORDER BY i.sort_order, i.name_key, i.id`,
		args, limit, q.Offset, scanItem, fmt.Sprintf("catalog of %d", companyID))
}

// catalogPageOf counts the rows countSQL selects and reads one page of listSQL (whose
// placeholders are args; LIMIT and OFFSET are appended): the page, the total and
// whether more rows follow it. what names the list in errors.
func catalogPageOf[T any](ctx context.Context, q refQuerier, countSQL, listSQL string, args []any,
	limit, offset int, scan func(refScanner) (T, error), what string) ([]T, int, bool, error) {
	out := []T{}
	var count int
	if err := q.QueryRowContext(ctx, countSQL, args...).Scan(&count); err != nil {
		return nil, 0, false, fmt.Errorf("count %s: %w", what, err)
	}
	args = append(args, limit+1, offset)
	rows, err := q.QueryContext(ctx, fmt.Sprintf(`%s LIMIT $%d OFFSET $%d`, listSQL, len(args)-1, len(args)), args...)
	if err != nil {
		return nil, 0, false, fmt.Errorf("list %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, 0, false, fmt.Errorf("list %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, false, fmt.Errorf("list %s: %w", what, err)
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, count, more, nil
}

// GetItem implements engine.CatalogStore.
func (s *Catalog) GetItem(ctx context.Context, companyID, id engine.ID) (engine.CatalogItem, error) {
	return s.getItem(ctx, s.db.SQL, companyID, id)
}

func (s *Catalog) getItem(ctx context.Context, q refQuerier, companyID, id engine.ID) (engine.CatalogItem, error) {
	it, err := scanItem(q.QueryRowContext(ctx, itemSelect+` WHERE i.id = $1 AND i.company_id = $2`, id, companyID))
	if errors.Is(err, sql.ErrNoRows) {
		return it, engine.E(engine.ErrNoCatalogFound)
	}
	if err != nil {
		return it, fmt.Errorf("get catalog item %d: %w", id, err)
	}
	return it, nil
}

// itemRow is what an item input writes besides the ids and times.
type itemRow struct {
	nameKey, search, userData string
	category                  any // nil for none
	base, delivery            int64
}

// prepareItem validates in and checks its category belongs to the tenant, inside q.
func (s *Catalog) prepareItem(ctx context.Context, q refQuerier, companyID engine.ID, in engine.CatalogItemInput) (engine.CatalogItemInput, itemRow, error) {
	in, err := engine.ValidateCatalogItem(in)
	if err != nil {
		return in, itemRow{}, err
	}
	var r itemRow
	if in.CategoryID != 0 {
		if _, err := s.getCategory(ctx, q, companyID, in.CategoryID); err != nil {
			return in, r, err
		}
		r.category = in.CategoryID
	}
	r.base, _ = engine.Cents(in.BaseValue)
	r.delivery, _ = engine.Cents(in.DeliveryValue)
	ud := in.UserData()
	b, err := json.Marshal(ud[:])
	if err != nil {
		return in, r, fmt.Errorf("user data: %w", err)
	}
	r.userData = string(b)
	r.nameKey = refFold(in.ItemName)
	r.search = strings.Join([]string{r.nameKey, refFold(in.Description), refFold(in.Manufacturer)}, refSep)
	return in, r, nil
}

// CreateItem implements engine.CatalogStore. The category is checked and the row
// written in one transaction; a category deleted meanwhile leaves the item without one.
func (s *Catalog) CreateItem(ctx context.Context, companyID engine.ID, in engine.CatalogItemInput) (engine.CatalogItem, error) {
	var out engine.CatalogItem
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		in, r, err := s.prepareItem(ctx, tx, companyID, in)
		if err != nil {
			return err
		}
		var id engine.ID
		err = tx.QueryRowContext(ctx, `INSERT INTO catalog_items (company_id, category_id, item_name, name_key,
			description, manufacturer, dimensions, unit_name, pax, sort_order, base_cents, delivery_cents,
			product_img, user_data, search, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16) RETURNING id`,
			companyID, r.category, in.ItemName, r.nameKey, in.Description, in.Manufacturer, in.Dimensions,
			in.UnitName, in.Pax, in.Order, r.base, r.delivery, in.ProductImg, r.userData, r.search,
			s.ts(s.now())).Scan(&id)
		if db.IsUniqueViolation(err) {
			return &engine.Error{Code: engine.ErrCatalogDuplicated, Cause: err}
		}
		if err != nil {
			return fmt.Errorf("insert catalog item: %w", err)
		}
		out, err = s.getItem(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// UpdateItem implements engine.CatalogStore. An item of another tenant is not found
// before its input is validated.
func (s *Catalog) UpdateItem(ctx context.Context, companyID, id engine.ID, in engine.CatalogItemInput) (engine.CatalogItem, error) {
	var out engine.CatalogItem
	err := s.db.Tx(ctx, func(tx *sql.Tx) error {
		if _, err := s.getItem(ctx, tx, companyID, id); err != nil {
			return err
		}
		in, r, err := s.prepareItem(ctx, tx, companyID, in)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE catalog_items SET category_id = $1, item_name = $2, name_key = $3,
			description = $4, manufacturer = $5, dimensions = $6, unit_name = $7, pax = $8, sort_order = $9,
			base_cents = $10, delivery_cents = $11, product_img = $12, user_data = $13, search = $14,
			updated_at = $15 WHERE id = $16 AND company_id = $17`,
			r.category, in.ItemName, r.nameKey, in.Description, in.Manufacturer, in.Dimensions, in.UnitName,
			in.Pax, in.Order, r.base, r.delivery, in.ProductImg, r.userData, r.search, s.ts(s.now()), id, companyID)
		if db.IsUniqueViolation(err) {
			return &engine.Error{Code: engine.ErrCatalogDuplicated, Cause: err}
		}
		if err != nil {
			return fmt.Errorf("update catalog item %d: %w", id, err)
		}
		out, err = s.getItem(ctx, tx, companyID, id)
		return err
	})
	return out, err
}

// DeleteItem implements engine.CatalogStore.
func (s *Catalog) DeleteItem(ctx context.Context, companyID, id engine.ID) error {
	res, err := s.db.SQL.ExecContext(ctx, `DELETE FROM catalog_items WHERE id = $1 AND company_id = $2`, id, companyID)
	if err != nil {
		return fmt.Errorf("delete catalog item %d: %w", id, err)
	}
	n, err := refAffected(res)
	if err != nil {
		return fmt.Errorf("delete catalog item %d: %w", id, err)
	}
	if n == 0 {
		return engine.E(engine.ErrNoCatalogFound)
	}
	return nil
}
