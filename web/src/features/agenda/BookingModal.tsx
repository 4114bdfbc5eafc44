// The booking modal (spec section 5): description required ('Insira uma descrição da
// tarefa'), date and time required; the time steps by 30 minutes like the agenda.
// Date and time are the tenant's wall clock; the server turns them into UTC.
// A resource's free slot can be taken instead (SlotPicker): the server books it in the
// booking's own transaction, and the booking gets the slot's time and position.
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { FormDialog, FormErrorText } from '../../components/FormDialog';
import { Field, Input, Row, Select, TextArea } from '../../components/primitives';
import { toast } from '../../components/toast/toastStore';
import { useFormSave } from '../../app/useFormSave';
import { length, required, validate, type ValidationKey } from '../../app/validation';
import { agendaApi, type Booking } from './api';
import { SlotPicker, type PickedSlot } from './SlotPicker';

type FieldName = 'description' | 'date' | 'time' | 'bookingName';
const fields: FieldName[] = ['description', 'date', 'time', 'bookingName'];
const durations = [30, 60, 90, 120] as const;
const levels = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'] as const;

type DescriptionKey = 'agenda.booking.descriptionRequired';

// checkBooking: the modal's client-side checks, in the spec's order.
export function checkBooking(values: Record<FieldName, string>): Partial<Record<FieldName, ValidationKey | DescriptionKey>> {
  const found: Partial<Record<FieldName, ValidationKey | DescriptionKey>> = validate(values, {
    description: [length(1, 400)],
    date: [required],
    time: [required],
    bookingName: [length(1, 400)],
  });
  if (!values.description.trim()) found.description = 'agenda.booking.descriptionRequired';
  return found;
}

export function BookingModal({
  initial,
  onClose,
  onSaved,
}: {
  initial: { date: string; time: string };
  onClose: () => void;
  onSaved: (b: Booking) => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Record<FieldName, string>>({
    description: '',
    date: initial.date,
    time: initial.time,
    bookingName: '',
  });
  const [duration, setDuration] = useState<number>(30);
  const [tagJson, setTagJson] = useState('1');
  const [slot, setSlot] = useState<PickedSlot | null>(null);
  const { errors, busy, save } = useFormSave<FieldName, Booking, DescriptionKey>({
    fields,
    onSaved: (b) => {
      toast.success(t('agenda.booking.saved'));
      onSaved(b);
    },
    onClose,
  });
  const set = (f: FieldName) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [f]: e.target.value }));

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save(checkBooking(values), () =>
      agendaApi.createBooking({
        description: values.description.trim(),
        date: values.date,
        time: values.time,
        duration,
        bookingName: values.bookingName.trim(),
        tagJson,
        ...(slot ? { slotId: slot.slotId } : {}),
      }),
    );
  };

  return (
    <FormDialog id="booking-form" width={520} title={t('agenda.booking.addTitle')} busy={busy} onClose={onClose} onSubmit={submit}>
      <SlotPicker
        picked={slot}
        onPick={(s) => {
          setSlot(s);
          if (s) {
            setValues((v) => ({ ...v, date: s.date, time: s.hour }));
            setDuration(30);
          }
        }}
      />
      <Field>
        {t('agenda.booking.name')}
        <Input name="bookingName" value={values.bookingName} onChange={set('bookingName')} autoComplete="off" />
        <FormErrorText error={errors.bookingName} />
      </Field>
      <Field>
        {t('agenda.booking.description')}
        <TextArea
          name="description"
          rows={3}
          value={values.description}
          onChange={set('description')}
          aria-invalid={!!errors.description}
        />
        <FormErrorText error={errors.description} />
      </Field>
      <Row $gap={12} $wrap>
        <Field>
          {t('agenda.booking.date')}
          <Input type="date" name="date" value={values.date} onChange={set('date')} aria-invalid={!!errors.date} readOnly={!!slot} />
          <FormErrorText error={errors.date} />
        </Field>
        <Field>
          {t('agenda.booking.time')}
          <Input type="time" name="time" step={1800} value={values.time} onChange={set('time')} aria-invalid={!!errors.time} readOnly={!!slot} />
          <FormErrorText error={errors.time} />
        </Field>
        <Field>
          {t('agenda.booking.duration')}
          <Select name="duration" value={duration} onChange={(e) => setDuration(Number(e.target.value))} disabled={!!slot}>
            {durations.map((d) => (
              <option key={d} value={d}>
                {t('agenda.booking.minutes', { count: d })}
              </option>
            ))}
          </Select>
        </Field>
        <Field>
          {t('agenda.booking.tagLevel')}
          <Select name="tagJson" value={tagJson} onChange={(e) => setTagJson(e.target.value)}>
            {levels.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </Select>
        </Field>
      </Row>
    </FormDialog>
  );
}
