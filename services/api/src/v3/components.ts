import { type Component, componentSchemas } from '../http/schema-kit.js';
import { AccountBalance, AccountStateFull, AccountStatesResponse, WalletState, WalletStatesResponse } from './accounts/schemas.js';
import { Block, BlockId, BlocksResponse, MasterchainInfo } from './blocks/schemas.js';
import { DNSRecord, DNSRecordsResponse, Multisig, MultisigOrder, MultisigOrdersResponse, MultisigWalletsResponse, NFTSale, NftSalesResponse, OrderAction, VestingInfo, VestingResponse } from './contracts/schemas.js';
import { AddressBook, AddressBookRow, AddressMetadata, ErrorSchema, Metadata, TokenInfo } from './schemas.js';
import {
  JettonBurn, JettonBurnsResponse, JettonMaster, JettonMastersResponse, JettonTransfer, JettonTransfersResponse, JettonWallet, JettonWalletsResponse,
  NFTCollection, NftCollectionsResponse, NFTItem, NftItemsResponse, NFTTransfer, NftTransfersResponse,
} from './tokens/schemas.js';
import { Action, ActionsResponse, EventsResponse, Trace, TraceMeta, TraceNode, TracesResponse } from './traces/schemas.js';
import { AccountState, Message, MessageContent, MessagesResponse, Transaction, TransactionDescr, TransactionsResponse } from './transactions/schemas.js';

/** Every named response schema, in the order the document lists them (`#/components/schemas`). */
const COMPONENTS: readonly Component<unknown>[] = [
  ErrorSchema, BlockId, Block, MasterchainInfo, BlocksResponse,
  MessageContent, Message, TransactionDescr, AccountState, Transaction,
  AddressBookRow, AddressBook, TokenInfo, AddressMetadata, Metadata, TransactionsResponse,
  AccountStateFull, AccountStatesResponse, WalletState, WalletStatesResponse, AccountBalance, MessagesResponse,
  TraceMeta, TraceNode, Action, Trace, TracesResponse, EventsResponse, ActionsResponse,
  JettonMaster, JettonWallet, JettonTransfer, JettonBurn, NFTCollection, NFTItem, NFTTransfer,
  JettonMastersResponse, JettonWalletsResponse, JettonTransfersResponse, JettonBurnsResponse, NftCollectionsResponse, NftItemsResponse, NftTransfersResponse,
  DNSRecord, OrderAction, MultisigOrder, Multisig, VestingInfo, NFTSale,
  DNSRecordsResponse, MultisigWalletsResponse, MultisigOrdersResponse, VestingResponse, NftSalesResponse,
];

export const SCHEMAS = componentSchemas(COMPONENTS);
