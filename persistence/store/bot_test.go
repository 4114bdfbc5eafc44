package store_test

import (
	"context"
	"testing"

	"atende/engine"
	"atende/persistence/db"
	"atende/persistence/db/dbtest"
	"atende/persistence/store"
)

func botSeed(t *testing.T, d *db.DB) {
	t.Helper()
	refSeedCompanies(t, d)
	const at = "2026-11-22T10:00:00Z"
	dbtest.MustExec(t, d, `INSERT INTO users (id, company_id, name, name_key, search, email, password_hash, profile, created_at, updated_at) VALUES
		(1, 1, 'Ana', 'ana', 'ana', 'ana@a.test', 'x', 'user', '`+at+`', '`+at+`'),
		(3, 2, 'Caio', 'caio', 'caio', 'caio@b.test', 'x', 'admin', '`+at+`', '`+at+`')`)
	dbtest.MustExec(t, d, `INSERT INTO queues (id, company_id, name, color, created_at, updated_at) VALUES
		(10, 1, 'Vendas', '#111111', '`+at+`', '`+at+`'), (20, 2, 'Outra', '#222222', '`+at+`', '`+at+`')`)
}

func TestBotStore(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		botSeed(t, d)
		s := store.NewBots(d, refClock)
		menu, err := s.Create(ctx, refA, engine.BotLevelInput{CommandBot: "2", DescriptionBot: "Suporte", CommandType: engine.BotMenu,
			ShowMessage: "Escolha:"})
		if err != nil || menu.CommandBot != "2" || menu.ParentID != 0 || menu.CompanyID != refA {
			t.Fatalf("create menu %+v %v", menu, err)
		}
		sales, err := s.Create(ctx, refA, engine.BotLevelInput{CommandBot: "01", DescriptionBot: "Vendas", CommandType: engine.BotQueue, QueueID: 10})
		if err != nil || sales.CommandBot != "1" || sales.QueueID != 10 {
			t.Fatalf("create queue option %+v %v", sales, err)
		}
		ana, err := s.Create(ctx, refA, engine.BotLevelInput{ParentID: menu.ID, CommandBot: "1", DescriptionBot: "Ana",
			CommandType: engine.BotUser, UserID: 1})
		if err != nil || ana.ParentID != menu.ID {
			t.Fatalf("create child %+v %v", ana, err)
		}

		t.Run("refusals", func(t *testing.T) {
			_, err := s.Create(ctx, refA, engine.BotLevelInput{CommandBot: "2", DescriptionBot: "x", CommandType: engine.BotMenu})
			refWantField(t, err, "commandBot", engine.MsgAlreadyExists)
			_, err = s.Create(ctx, refA, engine.BotLevelInput{CommandBot: "3", DescriptionBot: "x", CommandType: engine.BotQueue, QueueID: 20})
			refWantField(t, err, "queueId", engine.MsgInvalidValue) // another tenant's queue
			_, err = s.Create(ctx, refA, engine.BotLevelInput{CommandBot: "3", DescriptionBot: "x", CommandType: engine.BotUser, UserID: 3})
			refWantField(t, err, "userId", engine.MsgInvalidValue)
			_, err = s.Create(ctx, refA, engine.BotLevelInput{ParentID: sales.ID, CommandBot: "1", DescriptionBot: "x", CommandType: engine.BotMenu})
			refWantField(t, err, "parentId", engine.MsgInvalidValue) // a queue option has no children
			_, err = s.Create(ctx, refB, engine.BotLevelInput{ParentID: menu.ID, CommandBot: "1", DescriptionBot: "x", CommandType: engine.BotMenu})
			refWantField(t, err, "parentId", engine.MsgInvalidValue) // another tenant's parent
			_, err = s.Update(ctx, refA, menu.ID, engine.BotLevelInput{ParentID: menu.ID, CommandBot: "2", DescriptionBot: "x", CommandType: engine.BotMenu})
			refWantField(t, err, "parentId", engine.MsgInvalidValue) // its own parent
			_, err = s.Update(ctx, refA, menu.ID, engine.BotLevelInput{CommandBot: "2", DescriptionBot: "x", CommandType: engine.BotMessage, ShowMessage: "m"})
			refWantField(t, err, "commandType", engine.MsgInvalidValue) // a menu with children stays a menu
			_, err = s.Get(ctx, refB, menu.ID)
			refWantCode(t, err, engine.ErrNoBotFound)
			_, err = s.Update(ctx, refB, menu.ID, engine.BotLevelInput{})
			refWantCode(t, err, engine.ErrNoBotFound)
			refWantCode(t, s.Delete(ctx, refB, menu.ID), engine.ErrNoBotFound)
			_, err = s.Reorder(ctx, refA, 0, []engine.ID{menu.ID})
			refWantField(t, err, "ids", engine.MsgInvalidValue)
			_, err = s.Reorder(ctx, refA, 0, []engine.ID{menu.ID, menu.ID})
			refWantField(t, err, "ids", engine.MsgInvalidValue)
		})

		moved, err := s.Reorder(ctx, refA, 0, []engine.ID{menu.ID, sales.ID})
		if err != nil || len(moved) != 2 || moved[0].CommandBot != "1" || moved[1].CommandBot != "2" {
			t.Fatalf("reorder %+v %v", moved, err)
		}
		list, err := s.List(ctx, refA)
		if err != nil || len(list) != 3 || list[0].ID != menu.ID || list[1].ID != sales.ID || list[2].ID != ana.ID {
			t.Fatalf("list %+v %v", list, err)
		}
		if other, err := s.List(ctx, refB); err != nil || len(other) != 0 {
			t.Fatalf("tenant B sees %+v %v", other, err)
		}
		if err := s.Delete(ctx, refA, menu.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(ctx, refA, ana.ID); engine.CodeOf(err) != engine.ErrNoBotFound {
			t.Fatalf("child survived its parent: %v", err)
		}
		dbtest.MustExec(t, d, `DELETE FROM queues WHERE id = 10`)
		if list, err := s.List(ctx, refA); err != nil || len(list) != 0 {
			t.Fatalf("option of a deleted queue kept: %+v %v", list, err)
		}
	})
}
