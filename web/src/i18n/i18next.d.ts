// Keys are type-checked against the default locale (pt-BR).
import 'i18next';
import type agenda from './locales/pt-BR/agenda.json';
import type ai from './locales/pt-BR/ai.json';
import type announcements from './locales/pt-BR/announcements.json';
import type backendErrors from './locales/pt-BR/backendErrors.json';
import type bizflow from './locales/pt-BR/bizflow.json';
import type booking from './locales/pt-BR/booking.json';
import type bots from './locales/pt-BR/bots.json';
import type call from './locales/pt-BR/call.json';
import type catalog from './locales/pt-BR/catalog.json';
import type chat from './locales/pt-BR/chat.json';
import type common from './locales/pt-BR/common.json';
import type connections from './locales/pt-BR/connections.json';
import type contacts from './locales/pt-BR/contacts.json';
import type dashboard from './locales/pt-BR/dashboard.json';
import type internalChat from './locales/pt-BR/internalChat.json';
import type invite from './locales/pt-BR/invite.json';
import type layout from './locales/pt-BR/layout.json';
import type login from './locales/pt-BR/login.json';
import type pages from './locales/pt-BR/pages.json';
import type queues from './locales/pt-BR/queues.json';
import type quickAnswers from './locales/pt-BR/quickAnswers.json';
import type scheduling from './locales/pt-BR/scheduling.json';
import type settings from './locales/pt-BR/settings.json';
import type supervision from './locales/pt-BR/supervision.json';
import type tags from './locales/pt-BR/tags.json';
import type tickets from './locales/pt-BR/tickets.json';
import type users from './locales/pt-BR/users.json';
import type validation from './locales/pt-BR/validation.json';
import type tenants from './locales/pt-BR/tenants.json';
import type support from './locales/pt-BR/support.json';
import type calendarFeed from './locales/pt-BR/calendarFeed.json';
import type messagingApi from './locales/pt-BR/messagingApi.json';
import type outbound from './locales/pt-BR/outbound.json';
import type groups from './locales/pt-BR/groups.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    returnNull: false;
    resources: {
      translation: {
        agenda: typeof agenda;
        ai: typeof ai;
        announcements: typeof announcements;
        backendErrors: typeof backendErrors;
        bizflow: typeof bizflow;
        booking: typeof booking;
        bots: typeof bots;
        call: typeof call;
        catalog: typeof catalog;
        chat: typeof chat;
        common: typeof common;
        connections: typeof connections;
        contacts: typeof contacts;
        dashboard: typeof dashboard;
        internalChat: typeof internalChat;
        invite: typeof invite;
        layout: typeof layout;
        login: typeof login;
        tenants: typeof tenants;
        support: typeof support;
        calendarFeed: typeof calendarFeed;
        messagingApi: typeof messagingApi;
        outbound: typeof outbound;
        groups: typeof groups;
        pages: typeof pages;
        queues: typeof queues;
        quickAnswers: typeof quickAnswers;
        scheduling: typeof scheduling;
        settings: typeof settings;
        supervision: typeof supervision;
        tags: typeof tags;
        tickets: typeof tickets;
        users: typeof users;
        validation: typeof validation;
      };
    };
  }
}
