-- A booking takes a slot (persistence/store/booking.go, claimSlot) by setting the
-- slot's booking_id; cancelling the booking frees it by booking_id. This index finds
-- a booking's slot without reading the position's others.
CREATE INDEX slots_booking ON slots (company_id, booking_id) WHERE booking_id IS NOT NULL;
