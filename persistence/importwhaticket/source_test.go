package importwhaticket

import (
	"strings"
	"testing"
)

// No MySQL server runs here: these check what the importer would send one — the
// driver's data source name and the queries in MySQL's quoting.
func TestDriverForMySQLAndPostgres(t *testing.T) {
	for _, tt := range []struct {
		name, in, driver, dsn, err string
	}{
		{"postgres as given", "postgres://u:p@db:5432/whaticket?sslmode=disable", "pgx", "postgres://u:p@db:5432/whaticket?sslmode=disable", ""},
		{"mysql with port", "mysql://wt:s3cr%40t@db:3307/whaticket", "mysql", "wt:s3cr@t@tcp(db:3307)/whaticket?parseTime=true", ""},
		{"mysql default port", "mysql://wt:pw@db/whaticket", "mysql", "wt:pw@tcp(db:3306)/whaticket?parseTime=true", ""},
		{"mysql options kept", "mysql://wt:pw@db/whaticket?tls=skip-verify&timeout=5s", "mysql", "wt:pw@tcp(db:3306)/whaticket?parseTime=true&timeout=5s&tls=skip-verify", ""},
		{"mysql without database", "mysql://wt:pw@db/", "", "", "mysql://user:password@host"},
		{"other scheme", "sqlserver://db/x", "", "", "unsupported scheme"},
		{"garbage", "::", "", "", "source URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			driver, dsn, _, err := driverFor(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || driver != tt.driver || dsn != tt.dsn {
				t.Fatalf("= %q %q %v, want %q %q", driver, dsn, err, tt.driver, tt.dsn)
			}
		})
	}
}

func TestQueriesInMySQLQuoting(t *testing.T) {
	for _, q := range []string{qContacts, qCustomFields, qUsers, qUserQueues, qQueues, qWhatsapps, qWhatsappQueues,
		qQuickAnswers, qSettings, qTags, qTicketTags, qTickets, qLastTickets, qMessages, qCountTickets, qCountMessages} {
		my := flavourMySQL.sql(q)
		if strings.Contains(my, `"`) {
			t.Errorf("a double quote is left for MySQL: %s", my)
		}
		if strings.Count(my, "`")%2 != 0 || strings.Count(my, "`") == 0 {
			t.Errorf("unbalanced or missing backticks: %s", my)
		}
		if flavourPostgres.sql(q) != q {
			t.Errorf("PostgreSQL's query changed")
		}
	}
	// READ and KEY are reserved words in MySQL: quoted, they are column names.
	for _, col := range []string{"`read`", "`key`"} {
		if !strings.Contains(flavourMySQL.sql(qMessages+qSettings), col) {
			t.Errorf("%s not quoted", col)
		}
	}
	if got := flavourMySQL.sql(qUserQueues); got != "SELECT `userId`, `queueId` FROM `UserQueues` ORDER BY `userId`, `queueId`" {
		t.Errorf("UserQueues query = %s", got)
	}
}
