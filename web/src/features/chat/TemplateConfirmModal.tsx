// Template confirmation for WABA tickets (spec sections 5, 7 and 8): lists the approved
// templates (GET /wabatemplates) of the ticket's connection, requires one to be chosen
// (else the spec's info toast) and sends it with its placeholders {{1}}…{{4}}
// (contactName, patientName, attendantName, dateTime) through
// POST /waba/sendtemplatemessage/. Success shows 'Confirmação Enviada'.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '../../components/Dialog';
import { Splash } from '../../components/Splash';
import { Button, Field, Input, Muted } from '../../components/primitives';
import { toast } from '../../components/toast/toastStore';
import { toastError } from '../../app/errors';
import { wabaApi } from '../../api/endpoints';
import type { Ticket, WabaTemplate } from '../../api/types';
import { FormStack, TemplateList } from './style';

// Mounted by its opener while shown (ChatHeader), so the form starts from the ticket
// each time it opens; the effect only loads the templates.
export function TemplateConfirmModal({
  ticket,
  attendantName,
  onClose,
}: {
  ticket: Ticket;
  attendantName: string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const formId = useId();
  const [templates, setTemplates] = useState<WabaTemplate[] | null>(null);
  const [templateId, setTemplateId] = useState('');
  const [contactName, setContactName] = useState(ticket.contact?.name ?? '');
  const [patientName, setPatientName] = useState('');
  const [attendant, setAttendant] = useState(attendantName);
  const [dateTime, setDateTime] = useState('');
  const [sending, setSending] = useState(false);

  const whatsappId = ticket.whatsappId;
  useEffect(() => {
    let live = true;
    wabaApi.templates().then(
      (r) => {
        if (!live) return;
        const all = r?.templates ?? [];
        // Only the ticket's connection can send its business account's templates.
        setTemplates(whatsappId ? all.filter((x) => x.whatsappId === whatsappId) : all);
      },
      (e) => {
        if (!live) return;
        toastError(e);
        setTemplates([]);
      },
    );
    return () => {
      live = false;
    };
  }, [whatsappId]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (sending) return;
    if (!templateId) {
      toast.info(t('chat.template.choose'));
      return;
    }
    setSending(true);
    try {
      await wabaApi.sendTemplate({
        templateId,
        contactName,
        patientName,
        attendantName: attendant,
        dateTime,
        lcontactId: ticket.contactId,
        lticketId: ticket.id,
      });
      toast.success(t('chat.template.sent'));
      onClose();
    } catch (err) {
      toastError(err);
    } finally {
      setSending(false);
    }
  };

  return (
    <Dialog
      open
      onClose={onClose}
      title={t('chat.template.title')}
      width={560}
      actions={
        <>
          <Button type="button" $variant="ghost" onClick={onClose}>
            {t('common.actions.cancel')}
          </Button>
          <Button type="submit" form={formId} disabled={sending}>
            {t('chat.template.send')}
          </Button>
        </>
      }
    >
      <form id={formId} onSubmit={submit} noValidate>
        <FormStack>
          {templates === null ? (
            <Splash />
          ) : templates.length === 0 ? (
            <Muted>{t('chat.template.empty')}</Muted>
          ) : (
            <TemplateList role="radiogroup" aria-label={t('chat.template.templates')}>
              {templates.map((tpl) => (
                <label key={tpl.id}>
                  <input
                    type="radio"
                    name="templateId"
                    value={tpl.id}
                    checked={templateId === tpl.id}
                    onChange={() => setTemplateId(tpl.id)}
                  />
                  <span>
                    <strong>{tpl.templateName}</strong> <Muted>{[tpl.language, tpl.category].filter(Boolean).join(' · ')}</Muted>
                  </span>
                </label>
              ))}
            </TemplateList>
          )}
          <Field>
            {t('chat.template.contactName')}
            <Input value={contactName} onChange={(e) => setContactName(e.target.value)} />
          </Field>
          <Field>
            {t('chat.template.patientName')}
            <Input value={patientName} onChange={(e) => setPatientName(e.target.value)} />
          </Field>
          <Field>
            {t('chat.template.attendantName')}
            <Input value={attendant} onChange={(e) => setAttendant(e.target.value)} />
          </Field>
          <Field>
            {t('chat.template.dateTime')}
            <Input value={dateTime} onChange={(e) => setDateTime(e.target.value)} />
          </Field>
        </FormStack>
      </form>
    </Dialog>
  );
}
