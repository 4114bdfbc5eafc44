package readmodel_test

import (
	"fmt"
	"time"

	"atende/engine"
)

// The inbox fixture: company 1 with four staff and nine live tickets, company 2 with
// one. Each ticket is built whole before the next, so the list order (updatedAt
// descending) is descending id.
//
//	id  contact            queue  status   user  unread  tags       created (Cuiabá)
//	 1  João da Silva      10     pending  -     2       Urgente    2026-11-21 23:58
//	 2  Maria Souza        11     pending  -     1                  2026-11-21 23:58
//	 3  José O'Brien       -      pending  -     1                  2026-11-22
//	 4  Zoë 李             12     open     Bia   0                  2026-11-22
//	 5  Carlos Pereira     10     open     Ana   1       Urg, VIP   2026-11-22
//	 6  Fernanda Lima      11     open     Ana   0                  2026-11-22
//	 7  Pedro Álvares      10     closed   Alice 0                  2026-11-22
//	 8  Maria Souza        12     closed   Bia   0       VIP        2026-11-22
//	 9  João da Silva      -      open     Bia   1                  2026-11-22
//	10  Carlos Pereira     10     deleted                           2026-11-22
//	11  (company 2) João Externo, queue 60, pending, "boleto atrasado"
//
// Staff of company 1: 1 Alice (admin), 2 Ana (user, queue 10), 3 Bia (user, queues
// 11 and 12), 4 Sérgio (superv, queue 10).
var (
	alice   = principal(1, 1, engine.ProfileAdmin)
	ana     = principal(1, 2, engine.ProfileUser, 10)
	bia     = principal(1, 3, engine.ProfileUser, 11, 12)
	sergio  = principal(1, 4, engine.ProfileSuperv, 10)
	outside = principal(2, 50, engine.ProfileAdmin)
)

// inboxStart is 2026-11-21 23:58 in Cuiabá (UTC-4): the first two tickets are created
// on the 21st there, though on the 22nd in UTC.
var inboxStart = time.Date(2026, 11, 22, 3, 58, 0, 0, time.UTC)

func seedInbox(w *world) {
	w.t.Helper()
	w.now = inboxStart
	for _, c := range []engine.ID{1, 2} {
		w.company(c)
	}
	w.user(1, 1, "Alice Admin", engine.ProfileAdmin)
	w.user(1, 2, "Ana", engine.ProfileUser)
	w.user(1, 3, "Bia", engine.ProfileUser)
	w.user(1, 4, "Sérgio", engine.ProfileSuperv)
	w.user(2, 50, "Outsider", engine.ProfileAdmin)
	w.queue(1, 10, "Vendas", "#ff0000")
	w.queue(1, 11, "Suporte", "#00ff00")
	w.queue(1, 12, "Financeiro", "#0000ff")
	w.queue(2, 60, "Externa", "#ff0000")
	w.tag(1, 20, "Urgente", "#aa0000")
	w.tag(1, 21, "VIP", "#00aa00")
	w.tag(2, 70, "Urgente", "#aa0000")
	w.contact(1, 100, "João da Silva", "5565999990001", "joao@example.com")
	w.contact(1, 101, "Maria Souza", "5565988880002", "")
	w.contact(1, 102, "José O'Brien", "5511977770003", "")
	w.contact(1, 103, "Zoë 李", "5521966660004", "")
	w.contact(1, 104, "Carlos Pereira", "5565955550005", "")
	w.contact(1, 105, "Fernanda Lima", "5565944440006", "")
	w.contact(1, 106, "Pedro Álvares", "5565933330007", "")
	w.contact(2, 150, "João Externo", "5565999990001", "")

	proto := func(id engine.ID) string { return fmt.Sprintf("20261122-%06d", id) }
	w.open(1, 1, 100, 10, 0, proto(1))
	w.receive(1, "Olá, preciso do boleto de novembro")
	w.receive(1, "Obrigado!")
	w.do(1, engine.SetTags{TagIDs: []engine.ID{20}})

	w.open(1, 2, 101, 11, 0, proto(2))
	w.receive(2, "Bom dia")

	w.now = time.Date(2026, 11, 22, 4, 0, 0, 0, time.UTC) // midnight in Cuiabá
	w.open(1, 3, 102, 0, 0, proto(3))
	w.receive(3, "Alguém aí?")

	w.open(1, 4, 103, 12, 0, proto(4))
	w.receive(4, "Oi")
	w.do(4, engine.Accept{UserID: 3})
	w.do(4, engine.MarkRead{})

	w.open(1, 5, 104, 10, 2, proto(5))
	w.receive(5, "Quero comprar")
	w.do(5, engine.SetTags{TagIDs: []engine.ID{20, 21}})

	w.open(1, 6, 105, 11, 2, proto(6))
	w.send(6, 2, "Olá Fernanda", 0)
	gone := w.send(6, 2, "mensagem apagada xyzzy", 0)
	w.do(6, engine.DeleteMessage{MessageID: gone, ByUserID: 2})

	w.open(1, 7, 106, 10, 1, proto(7))
	w.do(7, engine.Resolve{})

	w.open(1, 8, 101, 12, 3, proto(8))
	w.receive(8, "Obrigado")
	w.do(8, engine.Resolve{})
	w.do(8, engine.SetTags{TagIDs: []engine.ID{21}})

	w.open(1, 9, 100, 0, 3, proto(9))
	w.receive(9, "Segunda via do boleto")

	w.open(1, 10, 104, 10, 0, proto(10))
	w.receive(10, "boleto")
	w.do(10, engine.Delete{})

	w.open(2, 11, 150, 60, 0, proto(11))
	w.receive(11, "boleto atrasado")
	w.do(11, engine.SetTags{TagIDs: []engine.ID{70}})
}
