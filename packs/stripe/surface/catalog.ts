// Products and prices: create, retrieve, list — the pack's catalog operations (product.created,
// price.created).
import {
  createPrice,
  createProduct,
  type CreatePriceInput,
  type CreateProductInput,
} from '../catalog.js';
import { BY_PRODUCT } from './indexes.js';
import { CREATED_LIST_PARAMS, listOf, orderedList } from './listing.js';
import { apiObject, stripeRoute } from './route.js';
import { packInput, retrieve } from './reads.js';

export const catalogRoutes = [
  stripeRoute({
    method: 'POST',
    path: '/v1/products',
    sdk: 'products.create',
    kind: 'write',
    events: ['product.created'],
    params: { name: 'string', description: 'string', metadata: 'metadata' },
    required: ['name'],
    handle: async ({ twin, input }) =>
      apiObject(await createProduct(twin, packInput<CreateProductInput>(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/products/:id',
    sdk: 'products.retrieve',
    kind: 'read',
    notIds: ['search'],
    handle: (ctx) => retrieve(ctx, 'product', 'product'),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/products',
    sdk: 'products.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, active: 'boolean' },
    handle: ({ twin, input, url }) => listOf(twin, orderedList('product', input), input, url),
  }),
  stripeRoute({
    method: 'POST',
    path: '/v1/prices',
    sdk: 'prices.create',
    kind: 'write',
    events: ['price.created'],
    params: {
      product: 'string',
      unit_amount: 'integer',
      currency: 'string',
      recurring: { interval: 'string', interval_count: 'integer', trial_period_days: 'integer' },
      nickname: 'string',
      lookup_key: 'string',
      metadata: 'metadata',
    },
    required: ['currency'],
    handle: async ({ twin, input }) =>
      apiObject(await createPrice(twin, packInput<CreatePriceInput>(input))),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/prices/:id',
    sdk: 'prices.retrieve',
    kind: 'read',
    notIds: ['search'],
    handle: (ctx) => retrieve(ctx, 'price', 'price'),
  }),
  stripeRoute({
    method: 'GET',
    path: '/v1/prices',
    sdk: 'prices.list',
    kind: 'read',
    params: { ...CREATED_LIST_PARAMS, product: 'string', active: 'boolean' },
    handle: ({ twin, input, url }) =>
      listOf(twin, orderedList('price', input, [['product', BY_PRODUCT]]), input, url),
  }),
];
