package seed

import (
	"context"
	"fmt"
	"strings"

	"atende/engine"
)

// Reference-data part of the seed (queues, tags, contacts, quick answers). The steps run after the users step, in the order
// returned. Each looks its rows up by their natural key (queue name or colour, tag
// name, contact number, quick-answer shortcut) and creates only the missing ones; a
// step whose store is not wired is skipped with a warning.

// RefDeps are the reference-data stores the seed writes through. Embedded in Deps.
type RefDeps struct {
	Contacts     engine.ContactStore
	Queues       engine.QueueStore
	Tags         engine.TagStore
	QuickAnswers engine.QuickAnswerStore
}

// refSteps lists the reference-data steps, run after the core steps.
func refSteps() []Step {
	return []Step{
		{Name: "queues", Run: seedQueues},
		{Name: "user queues", Run: seedUserQueues},
		{Name: "tags", Run: seedTags},
		{Name: "contacts", Run: seedContacts},
		{Name: "quick answers", Run: seedQuickAnswers},
	}
}

// DemoQueues are the demo tenant's queues. Each has a greeting, because a tenant with
// more than one queue needs one (engine.ValidateQueue).
var DemoQueues = []engine.QueueInput{
	{Name: "Atendimento", Color: "#1976d2", GreetingMessage: "Olá! Você está no Atendimento da Atende Demo. Em que podemos ajudar?"},
	{Name: "Financeiro", Color: "#388e3c", GreetingMessage: "Olá! Aqui é o Financeiro. Informe seu CPF ou CNPJ, por favor.",
		StartWork: "08:00", EndWork: "18:00", AbsenceMessage: "O Financeiro atende das 8h às 18h. Retornaremos assim que possível."},
	{Name: "Suporte", Color: "#f57c00", GreetingMessage: "Olá! Você está no Suporte técnico. Descreva o problema, por favor.",
		NPS: true, EncouragingMessage: "Obrigado por avaliar nosso atendimento!"},
}

// DemoUserQueues gives demo users (by e-mail) their queues (by name). A user who
// already has queues is left alone.
var DemoUserQueues = map[string][]string{
	"admin@atende.local": {"Atendimento", "Financeiro", "Suporte"},
	"carla@atende.local": {"Atendimento", "Financeiro", "Suporte"},
	"ana@atende.local":   {"Atendimento", "Financeiro"},
	"bruno@atende.local": {"Suporte"},
}

// DemoTags are the demo tenant's tags.
var DemoTags = []engine.TagInput{
	{Name: "VIP", Color: "#fbc02d"},
	{Name: "Urgente", Color: "#d32f2f"},
	{Name: "Novo cliente", Color: "#0288d1"},
}

// DemoContacts are twenty customers with Brazilian names and numbers (55 + area code
// + nine digits; fictitious), some with extra info and a sales opportunity.
var DemoContacts = []engine.ContactInput{
	{Name: "João da Silva", Number: "5565999110001", Email: "joao.silva@example.com.br",
		ExtraInfo: []engine.ExtraInfo{{Name: "Cidade", Value: "Cuiabá/MT"}, {Name: "location", Value: "-15.6010,-56.0974"}},
		SalesOpps: []engine.SalesOpp{{Name: "Plano Empresarial", Value: "R$ 1.200,00", Stage: "Proposta enviada"}}},
	{Name: "Maria Oliveira", Number: "5511998220002", Email: "maria.oliveira@example.com.br",
		ExtraInfo: []engine.ExtraInfo{{Name: "Empresa", Value: "Oliveira Comércio Ltda."}}},
	{Name: "José Santos", Number: "5521987330003"},
	{Name: "Ana Paula Souza", Number: "5531996440004", Email: "anapaula@example.com.br",
		SalesOpps: []engine.SalesOpp{{Name: "Renovação anual", Value: "R$ 890,00", Stage: "Negociação"}}},
	{Name: "Francisco Pereira", Number: "5561985550005"},
	{Name: "Antônia Lima", Number: "5571994660006", ExtraInfo: []engine.ExtraInfo{{Name: "Aniversário", Value: "12/03"}}},
	{Name: "Carlos Eduardo Costa", Number: "5581983770007", Email: "cadu.costa@example.com.br"},
	{Name: "Francisca Rodrigues", Number: "5541992880008"},
	{Name: "Paulo Almeida", Number: "5551981990009",
		SalesOpps: []engine.SalesOpp{{Name: "Licenças adicionais", Value: "R$ 450,00", Stage: "Fechado", ClosingStatus: intPtr(engine.OppWon)}}},
	{Name: "Luíza Nascimento", Number: "5585999010010", Email: "luiza.n@example.com.br"},
	{Name: "Lucas Araújo", Number: "5562998020011", ExtraInfo: []engine.ExtraInfo{{Name: "Cidade", Value: "Goiânia/GO"}}},
	{Name: "Fernanda Ribeiro", Number: "5567987030012"},
	{Name: "Marcos Gonçalves", Number: "5565996040013",
		ExtraInfo: []engine.ExtraInfo{{Name: "Empresa", Value: "Gonçalves Transportes"}},
		SalesOpps: []engine.SalesOpp{{Name: "Frota rastreada", Value: "R$ 3.500,00", Stage: "Primeiro contato"}}},
	{Name: "Juliana Carvalho", Number: "5548985050014", Email: "ju.carvalho@example.com.br"},
	{Name: "Rafael Barbosa", Number: "5527994060015"},
	{Name: "Patrícia Melo", Number: "5591983070016"},
	{Name: "Rodrigo Teixeira", Number: "5519992080017", Email: "rodrigo.t@example.com.br",
		SalesOpps: []engine.SalesOpp{{Name: "Treinamento da equipe", Value: "R$ 700,00", Stage: "Perdido", ClosingStatus: intPtr(engine.OppLost)}}},
	{Name: "Camila Rocha", Number: "5584981090018"},
	{Name: "Thiago Martins", Number: "5565999100019", ExtraInfo: []engine.ExtraInfo{{Name: "Observação", Value: "Prefere contato à tarde."}}},
	{Name: "Beatriz Cardoso", Number: "5511988110020", Email: "bia.cardoso@example.com.br"},
}

// DemoQuickAnswers are six canned replies in Portuguese.
var DemoQuickAnswers = []engine.QuickAnswerInput{
	{Shortcut: "ola", Message: "Olá! Seja bem-vindo(a) à Atende Demo. Como posso ajudar?"},
	{Shortcut: "horario", Message: "Nosso horário de atendimento é de segunda a sexta, das 8h às 18h (horário de Cuiabá)."},
	{Shortcut: "aguarde", Message: "Só um momento, por favor: estou verificando as informações."},
	{Shortcut: "pix", Message: "Você pode pagar por PIX usando a chave financeiro@atende.local. Depois, envie o comprovante por aqui."},
	{Shortcut: "protocolo", Message: "Anote o número do seu protocolo de atendimento; ele agiliza qualquer retorno."},
	{Shortcut: "obrigado", Message: "Obrigado pelo contato! Se precisar de algo mais, é só chamar. Tenha um ótimo dia!"},
}

func intPtr(v int) *int { return &v }

// skipUnwired logs and reports whether a step's store is missing.
func skipUnwired(d Deps, step string, wired bool) bool {
	if !wired {
		d.Log.Warn().Str("step", step).Msg("seed: store not wired, step skipped")
	}
	return !wired
}

func seedQueues(ctx context.Context, d Deps) error {
	if skipUnwired(d, "queues", d.Queues != nil) {
		return nil
	}
	have, err := d.Queues.List(ctx, DemoCompanyID)
	if err != nil {
		return err
	}
next:
	for _, in := range DemoQueues {
		for _, q := range have {
			if strings.EqualFold(q.Name, in.Name) || strings.EqualFold(q.Color, in.Color) {
				continue next
			}
		}
		q, err := d.Queues.Create(ctx, DemoCompanyID, in)
		if err != nil {
			return fmt.Errorf("demo queue %s: %w", in.Name, err)
		}
		have = append(have, q)
		d.Log.Info().Str("queue", q.Name).Msg("seed: demo queue created")
	}
	return nil
}

func seedUserQueues(ctx context.Context, d Deps) error {
	if skipUnwired(d, "user queues", d.Queues != nil) {
		return nil
	}
	queues, err := d.Queues.List(ctx, DemoCompanyID)
	if err != nil {
		return err
	}
	byName := map[string]engine.ID{}
	for _, q := range queues {
		byName[q.Name] = q.ID
	}
	for _, du := range DemoUsers {
		u, err := d.Users.ByEmail(ctx, du.Email)
		if engine.CodeOf(err) == engine.ErrNoUserFound {
			continue
		}
		if err != nil {
			return err
		}
		if u.CompanyID != DemoCompanyID || len(u.Queues) > 0 {
			continue
		}
		var ids []engine.ID
		for _, name := range DemoUserQueues[du.Email] {
			if id, ok := byName[name]; ok {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		ids = engine.NormalizeIDs(ids)
		if _, err := d.Users.Update(ctx, DemoCompanyID, u.ID, engine.UserChange{QueueIDs: &ids}); err != nil {
			return fmt.Errorf("queues of demo user %s: %w", du.Email, err)
		}
		d.Log.Info().Str("email", du.Email).Int("queues", len(ids)).Msg("seed: demo user queues set")
	}
	return nil
}

func seedTags(ctx context.Context, d Deps) error {
	if skipUnwired(d, "tags", d.Tags != nil) {
		return nil
	}
	for _, in := range DemoTags {
		t, created, err := d.Tags.Create(ctx, DemoCompanyID, in)
		if err != nil {
			return fmt.Errorf("demo tag %s: %w", in.Name, err)
		}
		if created {
			d.Log.Info().Str("tag", t.Name).Msg("seed: demo tag created")
		}
	}
	return nil
}

func seedContacts(ctx context.Context, d Deps) error {
	if skipUnwired(d, "contacts", d.Contacts != nil) {
		return nil
	}
	created := 0
	for _, in := range DemoContacts {
		page, err := d.Contacts.List(ctx, DemoCompanyID, engine.ContactQuery{Search: in.Number, Limit: 1})
		if err != nil {
			return err
		}
		if page.Count > 0 {
			continue
		}
		if _, err := d.Contacts.Create(ctx, DemoCompanyID, in); err != nil {
			return fmt.Errorf("demo contact %s: %w", in.Name, err)
		}
		created++
	}
	if created > 0 {
		d.Log.Info().Int("contacts", created).Msg("seed: demo contacts created")
	}
	return nil
}

func seedQuickAnswers(ctx context.Context, d Deps) error {
	if skipUnwired(d, "quick answers", d.QuickAnswers != nil) {
		return nil
	}
next:
	for _, in := range DemoQuickAnswers {
		page, _, _, err := d.QuickAnswers.List(ctx, DemoCompanyID, engine.QuickAnswerQuery{Search: in.Shortcut, Limit: 200})
		if err != nil {
			return err
		}
		for _, a := range page {
			if strings.EqualFold(a.Shortcut, in.Shortcut) {
				continue next
			}
		}
		a, err := d.QuickAnswers.Create(ctx, DemoCompanyID, in)
		if err != nil {
			return fmt.Errorf("demo quick answer %s: %w", in.Shortcut, err)
		}
		d.Log.Info().Str("shortcut", a.Shortcut).Msg("seed: demo quick answer created")
	}
	return nil
}
