-- How far an import (persistence/importwhaticket) has written its tickets: every
-- ticket of the source with an id up to tickets_done_through that the import claimed
-- in import_map has its whole stream written. Tickets come in source id order, a
-- batch at a time, and the mark moves after each batch written whole. It replaces a
-- second import_map row a ticket (kind "ticket.done", still honoured where an earlier
-- import left them): 100,000 fewer rows, and none updated, at 100,000 tickets.
CREATE TABLE import_progress (
    company_id           BIGINT NOT NULL,
    source               TEXT NOT NULL,
    tickets_done_through BIGINT NOT NULL,
    PRIMARY KEY (company_id, source)
);
