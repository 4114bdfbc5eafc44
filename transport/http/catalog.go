package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"atende/engine"
)

// The product catalog and its categories (spec sections 3, 7 and 8). Every profile of
// the tenant reads them (the composer's '#' and '@' searches); writes need
// engine.ActManageCatalog (the business section: admin and super). Every change
// publishes to the tenant the realtime event "catalog" {action, item | itemId} or
// "category" {action, category | categoryId}.

// catalogRoutes registers the catalog routes; called by refRoutes.
func (s *Server) catalogRoutes() {
	wired := s.deps.Catalog != nil
	s.refRoute("GET /catalog", wired, s.listCatalog)
	s.refRoute("GET /catalog/{$}", wired, s.listCatalog)
	s.refRoute("GET /catalog/{id}", wired, s.getCatalogItem)
	s.refRoute("POST /catalog", wired, s.createCatalogItem)
	s.refRoute("POST /catalog/upload", wired, s.uploadCatalogImage)
	s.refRoute("PUT /catalog/{id}", wired, s.updateCatalogItem)
	s.refRoute("DELETE /catalog/{id}", wired, s.deleteCatalogItem)
	s.refRoute("GET /categories", wired, s.listCategories)
	s.refRoute("GET /categories/{$}", wired, s.listCategories)
	s.refRoute("GET /categories/{id}", wired, s.getCategory)
	s.refRoute("POST /categories", wired, s.createCategory)
	s.refRoute("PUT /categories/{id}", wired, s.updateCategory)
	s.refRoute("DELETE /categories/{id}", wired, s.deleteCategory)
}

// catalogEvent is the payload of the realtime "catalog" event.
type catalogEvent struct {
	Action string              `json:"action"` // create | update | delete
	Item   *engine.CatalogItem `json:"item,omitempty"`
	ItemID engine.ID           `json:"itemId,omitempty"`
}

// categoryEvent is the payload of the realtime "category" event.
type categoryEvent struct {
	Action     string           `json:"action"` // create | update | delete
	Category   *engine.Category `json:"category,omitempty"`
	CategoryID engine.ID        `json:"categoryId,omitempty"`
}

// catalogQuery reads searchParam, pageNumber and activeOnly ("true": only items of
// active categories, as the composer asks).
func catalogQuery(r *http.Request) (engine.CatalogQuery, error) {
	search, page, err := listParams(r)
	if err != nil {
		return engine.CatalogQuery{}, err
	}
	active, err := queryBool(r, "activeOnly", false)
	if err != nil {
		return engine.CatalogQuery{}, err
	}
	return engine.CatalogQuery{Search: search, Offset: (page - 1) * engine.CatalogPageSize, ActiveOnly: active}, nil
}

// presentItem sets ProductImgURL: a signed link when productImg is a stored file of
// the tenant, the address itself when it is a web address.
func (s *Server) presentItem(companyID engine.ID, it *engine.CatalogItem) {
	switch {
	case strings.HasPrefix(it.ProductImg, "http://"), strings.HasPrefix(it.ProductImg, "https://"):
		it.ProductImgURL = it.ProductImg
	case s.deps.Media != nil && strings.HasPrefix(it.ProductImg, strconv.FormatInt(companyID, 10)+"/"):
		if u, err := s.deps.Media.URL(companyID, it.ProductImg, s.deps.mediaURLTTL()); err == nil {
			it.ProductImgURL = u
		}
	}
}

// listCatalog: GET /catalog?searchParam=&pageNumber=&activeOnly= → {catalog, count,
// hasMore}, 20 a page, by order then name. The search matches the item's name,
// description and manufacturer or its category's name, case and accents ignored; a
// leading '#' or '@' is dropped; searchParam=sticker lists the stickers.
func (s *Server) listCatalog(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := catalogQuery(r)
	if err != nil {
		return err
	}
	list, count, more, err := s.deps.Catalog.ListItems(r.Context(), p.CompanyID, q)
	if err != nil {
		return fmt.Errorf("list catalog: %w", err)
	}
	for i := range list {
		s.presentItem(p.CompanyID, &list[i])
	}
	writeJSON(w, http.StatusOK, map[string]any{"catalog": list, "count": count, "hasMore": more})
	return nil
}

// getCatalogItem: GET /catalog/{id}.
func (s *Server) getCatalogItem(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoCatalogFound)
	if err != nil {
		return err
	}
	it, err := s.deps.Catalog.GetItem(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	s.presentItem(p.CompanyID, &it)
	writeJSON(w, http.StatusOK, it)
	return nil
}

// checkProductImg: a stored productImg must be an existing image of p's tenant.
func (s *Server) checkProductImg(ctx context.Context, p engine.Principal, img string) error {
	img = strings.TrimSpace(img)
	if img == "" || strings.HasPrefix(img, "http://") || strings.HasPrefix(img, "https://") {
		return nil // web addresses and the form's other rules: engine.ValidateCatalogItem
	}
	bad := fieldError("productImg", engine.MsgInvalidValue)
	if !engine.IsStoredMediaPath(img) {
		return nil // refused by the validation with the other fields
	}
	if s.deps.Media == nil || !strings.HasPrefix(img, strconv.FormatInt(p.CompanyID, 10)+"/") {
		return bad
	}
	rc, f, err := s.deps.Media.Open(ctx, p.CompanyID, img)
	if err != nil {
		if isNotFound(err) {
			return bad
		}
		return fmt.Errorf("open product image %s: %w", img, err)
	}
	_ = rc.Close()
	if f.Type != engine.MediaImage {
		return bad
	}
	return nil
}

// createCatalogItem: POST /catalog {itemName, description, manufacturer, dimensions,
// unitName, pax, categoryId, order, baseValue, deliveryValue, productImg,
// userData1–9} → 201. Needs catalog:manage.
func (s *Server) createCatalogItem(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	var in engine.CatalogItemInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	if err := s.checkProductImg(r.Context(), p, in.ProductImg); err != nil {
		return err
	}
	it, err := s.deps.Catalog.CreateItem(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.presentItem(p.CompanyID, &it)
	s.publish(p.CompanyID, "catalog", catalogEvent{Action: "create", Item: &it})
	writeJSON(w, http.StatusCreated, it)
	return nil
}

// updateCatalogItem: PUT /catalog/{id}, the body of POST. Needs catalog:manage.
func (s *Server) updateCatalogItem(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCatalogFound)
	if err != nil {
		return err
	}
	var in engine.CatalogItemInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	if _, err := s.deps.Catalog.GetItem(r.Context(), p.CompanyID, id); err != nil {
		return err // another tenant's item is not found before its input is checked
	}
	if err := s.checkProductImg(r.Context(), p, in.ProductImg); err != nil {
		return err
	}
	it, err := s.deps.Catalog.UpdateItem(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.presentItem(p.CompanyID, &it)
	s.publish(p.CompanyID, "catalog", catalogEvent{Action: "update", Item: &it})
	writeJSON(w, http.StatusOK, it)
	return nil
}

// deleteCatalogItem: DELETE /catalog/{id} → 204. Needs catalog:manage. The image
// file stays: a message already sent may show it.
func (s *Server) deleteCatalogItem(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCatalogFound)
	if err != nil {
		return err
	}
	if err := s.deps.Catalog.DeleteItem(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "catalog", catalogEvent{Action: "delete", ItemID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}

// uploadCatalogImage: multipart POST /catalog/upload with one file field "file" →
// 201 {productImg, productImgUrl}; productImg then goes in the item's form. The file
// is stored and checked like message media (ERR_MEDIA_TYPE_NOT_ALLOWED,
// ERR_MEDIA_TOO_LARGE, ERR_BODY_TOO_LARGE) and must be an image: anything else is
// removed again and answered ERR_MEDIA_TYPE_NOT_ALLOWED (415). Needs catalog:manage.
func (s *Server) uploadCatalogImage(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	if s.deps.Media == nil {
		return engine.Wrap(engine.ErrUnavailable, errors.New("no media store"))
	}
	r.Body = http.MaxBytesReader(w, r.Body, s.deps.maxUploadBytes())
	mr, err := r.MultipartReader()
	if err != nil {
		return engine.Wrap(engine.ErrInvalidJSON, fmt.Errorf("multipart: %w", err))
	}
	for parts := 0; parts < maxUploadParts; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return bodyError(err)
		}
		if part.FormName() != "file" {
			_, err := io.Copy(io.Discard, part)
			_ = part.Close()
			if err != nil {
				return bodyError(err)
			}
			continue
		}
		f, err := s.deps.Media.Save(r.Context(), p.CompanyID, part, part.FileName(), part.Header.Get("Content-Type"))
		_ = part.Close()
		if err != nil {
			return uploadError(err)
		}
		if f.Type != engine.MediaImage {
			if rm, ok := s.deps.Media.(mediaRemover); ok {
				_ = rm.Remove(r.Context(), p.CompanyID, f.Path)
			}
			return engine.Wrap(engine.ErrMediaTypeNotAllowed, fmt.Errorf("product image is %s", f.MIME))
		}
		it := engine.CatalogItem{ProductImg: f.Path}
		s.presentItem(p.CompanyID, &it)
		writeJSON(w, http.StatusCreated, map[string]string{"productImg": it.ProductImg, "productImgUrl": it.ProductImgURL})
		return nil
	}
	return fieldError("file", engine.MsgRequired)
}

// listCategories: GET /categories?searchParam=&pageNumber=&activeOnly= → {categories,
// count, hasMore}, 20 a page, by name.
func (s *Server) listCategories(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	q, err := catalogQuery(r)
	if err != nil {
		return err
	}
	list, count, more, err := s.deps.Catalog.ListCategories(r.Context(), p.CompanyID, q)
	if err != nil {
		return fmt.Errorf("list categories: %w", err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"categories": list, "count": count, "hasMore": more})
	return nil
}

// getCategory: GET /categories/{id}.
func (s *Server) getCategory(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	id, err := pathID(r, "id", engine.ErrNoCategoryFound)
	if err != nil {
		return err
	}
	c, err := s.deps.Catalog.GetCategory(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// createCategory: POST /categories {categoryName, mustaccio, displayName, isActive,
// template} → 201. Needs catalog:manage.
func (s *Server) createCategory(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	var in engine.CategoryInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := s.deps.Catalog.CreateCategory(r.Context(), p.CompanyID, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "category", categoryEvent{Action: "create", Category: &c})
	writeJSON(w, http.StatusCreated, c)
	return nil
}

// updateCategory: PUT /categories/{id}, the body of POST. Needs catalog:manage.
func (s *Server) updateCategory(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCategoryFound)
	if err != nil {
		return err
	}
	var in engine.CategoryInput
	if err := s.decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := s.deps.Catalog.UpdateCategory(r.Context(), p.CompanyID, id, in)
	if err != nil {
		return err
	}
	s.publish(p.CompanyID, "category", categoryEvent{Action: "update", Category: &c})
	writeJSON(w, http.StatusOK, c)
	return nil
}

// deleteCategory: DELETE /categories/{id} → 204. Needs catalog:manage. Its items
// stay, without a category.
func (s *Server) deleteCategory(w http.ResponseWriter, r *http.Request, p engine.Principal) error {
	if err := requirePermission(p, engine.ActManageCatalog); err != nil {
		return err
	}
	id, err := pathID(r, "id", engine.ErrNoCategoryFound)
	if err != nil {
		return err
	}
	if err := s.deps.Catalog.DeleteCategory(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	s.publish(p.CompanyID, "category", categoryEvent{Action: "delete", CategoryID: id})
	writeJSON(w, http.StatusNoContent, nil)
	return nil
}
